// The offscreen vision loop with a fake camera and fake timers, detecting through the REAL fixture detector over HTTP
// (transformers.js + onnxruntime-node), and the worker handler's protocol on the same detector.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VisionPreviewMessage } from '../../../core/vision/preview-channel';
import type { CameraState, GrabbedFrame } from '../../../models/vision/camera-capture';
import { Detector, type RgbaFrame } from '../../../models/vision/detector';
import { VisionLoop, type CameraLike } from '../../../models/vision/vision-loop';
import { createVisionWorkerHandler } from '../../../models/vision/vision-worker-handler';
import type { VisionWorkerReply } from '../../../models/vision/vision-protocol';
import { quadrantImage } from '../../fixtures/vision/reference';
import { startVisionHub, type VisionHub } from './hub';

const RED: [number, number, number] = [230, 20, 20];
const GREEN: [number, number, number] = [20, 220, 30];
const GREY: [number, number, number] = [128, 128, 128];

let env: VisionHub;
let detector: Detector;

beforeAll(async () => {
  env = await startVisionHub();
  detector = await Detector.load({ device: 'cpu', warmUp: false });
});
afterAll(async () => {
  await detector?.dispose();
  await env?.close();
});

class FakeCamera implements CameraLike {
  state: CameraState = { kind: 'off' };
  picture: RgbaFrame = quadrantImage(320, 240, [GREY, GREY, GREY, GREY]);
  grabs = 0;
  stops = 0;
  constructor(
    private readonly onState: (s: CameraState) => void,
    private readonly clock: () => number,
  ) {}
  async start() {
    this.state = { kind: 'on', width: 320, height: 240 };
    this.onState(this.state);
  }
  stop() {
    this.stops += 1;
    this.state = { kind: 'off' };
    this.onState(this.state);
  }
  unplug() {
    this.state = { kind: 'error', code: 'ended', message: 'The camera was disconnected.' };
    this.onState(this.state);
  }
  grab(): GrabbedFrame | null {
    if (this.state.kind !== 'on') return null;
    this.grabs += 1;
    const frame = { ...this.picture, data: this.picture.data.slice() };
    return {
      frame,
      capturedAt: this.clock(),
      jpeg: async () => new Blob([new Uint8Array([0xff, 0xd8, 0xff])], { type: 'image/jpeg' }),
    };
  }
}

function harness() {
  let now = 0;
  const timers: Array<{ at: number; fn: () => void; id: number }> = [];
  let nextId = 1;
  const published: VisionPreviewMessage[] = [];
  let camera!: FakeCamera;
  const detects: number[] = [];
  let inflight: Promise<unknown> | null = null;
  const loop = new VisionLoop({
    createCamera: (onState) => (camera = new FakeCamera(onState, () => now)),
    detect: async (frame, capturedAt) => {
      detects.push(capturedAt);
      const p = detector.detect(frame);
      inflight = p;
      return p;
    },
    publish: (m) => published.push(m),
    now: () => now,
    setTimer: (fn, ms) => {
      const id = nextId++;
      timers.push({ at: now + ms, fn, id });
      return id;
    },
    clearTimer: (id) => {
      const i = timers.findIndex((t) => t.id === id);
      if (i >= 0) timers.splice(i, 1);
    },
  });
  /** Moves the fake clock forward, firing due timers and letting each detection finish. */
  async function run(ms: number) {
    const end = now + ms;
    for (;;) {
      timers.sort((a, b) => a.at - b.at);
      const next = timers[0];
      if (!next || next.at > end) break;
      timers.shift();
      now = next.at;
      next.fn();
      // Let the detection the timer started finish, then the loop's continuation (publish, reschedule).
      await new Promise((r) => setImmediate(r));
      if (inflight) await inflight.catch(() => undefined);
      inflight = null;
      await new Promise((r) => setImmediate(r));
    }
    now = end;
  }
  return { loop, published, detects, run, camera: () => camera, timers };
}

describe('VisionLoop', () => {
  it('sees, smooths, previews and answers; yields to speech; stops the camera on close', async () => {
    const h = harness();
    await h.loop.start();
    expect(h.loop.answer('describe')).toMatch(/still getting a look/);
    h.camera().picture = quadrantImage(320, 240, [RED, GREY, GREY, GREEN]);
    await h.run(1500); // frames at 0 and 700 (search cadence): two looks establish person + cup
    expect(h.detects.length).toBeGreaterThanOrEqual(2);
    expect(h.loop.answer('describe')).toBe('I see a person and a cup.');
    expect(h.loop.answer('count-people')).toBe('I see one person.');
    const frames = h.published.filter((m) => m.kind === 'frame');
    expect(frames.length).toBe(h.detects.length);
    expect(frames.at(-1)).toMatchObject({ width: 320, height: 240 });
    expect(
      frames.at(-1)!.kind === 'frame' &&
        frames
          .at(-1)!
          .objects.map((o) => o.label)
          .sort(),
    ).toEqual(['cup', 'person']);

    // Speech owns the GPU: no detection for as long as it lasts.
    const before = h.detects.length;
    h.loop.setStage('llm', true);
    expect(h.published.at(-1)).toEqual({ kind: 'state', state: 'paused' });
    await h.run(10_000);
    expect(h.detects.length).toBe(before);
    h.loop.setStage('llm', false);
    await h.run(3_000);
    expect(h.detects.length).toBeGreaterThan(before);
    expect(h.published.some((m) => m.kind === 'state' && m.state === 'on')).toBe(true);

    h.loop.stop();
    expect(h.camera().stops).toBe(1);
    expect(h.published.at(-1)).toEqual({ kind: 'state', state: 'off' });
    expect(h.loop.answer('describe')).toMatch(/camera is off/);
    const after = h.detects.length;
    await h.run(10_000);
    expect(h.detects.length).toBe(after);
  });

  it('an unplugged camera becomes a typed error and answers say so', async () => {
    const h = harness();
    await h.loop.start();
    await h.run(100);
    h.camera().unplug();
    expect(h.published.at(-1)).toEqual({ kind: 'state', state: 'error', message: 'The camera was disconnected.' });
    expect(h.loop.availability()).toBe('camera-lost');
    expect(h.loop.answer('holding')).toMatch(/lost the camera/);
    const n = h.detects.length;
    await h.run(5_000);
    expect(h.detects.length).toBe(n);
  });
});

describe('vision worker handler', () => {
  it('answers load / detect / dispose by id and reports errors as typed replies', async () => {
    const replies: VisionWorkerReply[] = [];
    const handle = createVisionWorkerHandler({ prepare: async () => 'cpu', post: (r) => replies.push(r), now: () => 0 });
    const image = quadrantImage(320, 240, [GREY, RED, GREY, GREY]);
    await handle({ type: 'detect', requestId: 'r1', width: 320, height: 240, data: image.data, capturedAt: 5 });
    expect(replies.at(-1)).toMatchObject({ type: 'error', requestId: 'r1', code: 'not-loaded' });
    await handle({ type: 'load', requestId: 'r2' });
    expect(replies.at(-1)).toMatchObject({ type: 'loaded', requestId: 'r2', device: 'cpu' });
    await handle({ type: 'detect', requestId: 'r3', width: 320, height: 240, data: image.data, capturedAt: 5 });
    const r = replies.at(-1)!;
    expect(r).toMatchObject({ type: 'detections', requestId: 'r3', capturedAt: 5 });
    expect(r.type === 'detections' && r.detections.map((d) => d.label)).toEqual(['person']);
    expect(r.type === 'detections' && r.detections[0]!.box.x0).toBeGreaterThanOrEqual(0.5);
    await handle({ type: 'detect', requestId: 'r4', width: 10, height: 10, data: new Uint8ClampedArray(3), capturedAt: 0 });
    expect(replies.at(-1)).toMatchObject({ type: 'error', requestId: 'r4', code: 'bad-request' });
    await handle({ type: 'dispose', requestId: 'r5' });
    expect(replies.at(-1)).toEqual({ type: 'disposed', requestId: 'r5' });
  });
});
