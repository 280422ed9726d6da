// Camera capture against fake media objects (tracks stopped at once, unplug → typed error), the preview reducer, and
// the PiP's alt text / mirrored box geometry.
import { describe, expect, it } from 'vitest';
import {
  CameraCapture,
  cameraErrorCode,
  fitWithin,
  type CameraDeps,
  type CameraState,
} from '../../../models/vision/camera-capture';
import { VisionPreviewMessageSchema } from '../../../core/vision/preview-channel';
import { boxStyle, previewAltText } from '../../../components/vision/preview-labels';
import { reducePreview, type VisionPreview } from '../../../components/vision/use-vision-preview';

class FakeTrack extends EventTarget {
  stopped = false;
  stop() {
    this.stopped = true;
  }
}

function fakeDeps(fail?: { name: string; message: string }) {
  const track = new FakeTrack();
  const stream = { getTracks: () => [track], getVideoTracks: () => [track] } as unknown as MediaStream;
  const video = {
    muted: false,
    playsInline: false,
    srcObject: null as unknown,
    videoWidth: 640,
    videoHeight: 480,
    play: async () => {},
    pause() {},
  };
  const drawn: number[][] = [];
  const deps: CameraDeps = {
    getUserMedia: async () => {
      if (fail) throw Object.assign(new Error(fail.message), { name: fail.name });
      return stream;
    },
    createVideo: () => video as unknown as HTMLVideoElement,
    createCanvas: (w, h) =>
      ({
        getContext: () => ({
          drawImage: (_src: unknown, x: number, y: number, dw: number, dh: number) => drawn.push([x, y, dw, dh]),
          getImageData: (_x: number, _y: number, gw: number, gh: number) => ({ data: new Uint8ClampedArray(gw * gh * 4) }),
        }),
        convertToBlob: async () => new Blob([new Uint8Array(w * h > 0 ? 3 : 0)], { type: 'image/jpeg' }),
      }) as unknown as OffscreenCanvas,
    now: () => 42,
  };
  return { deps, track, video, drawn };
}

describe('CameraCapture', () => {
  it('starts, grabs a downscaled frame, and stop() stops every track immediately', async () => {
    const { deps, track, video, drawn } = fakeDeps();
    const states: CameraState[] = [];
    const cam = new CameraCapture((s) => states.push(s), deps);
    await cam.start();
    expect(states.map((s) => s.kind)).toEqual(['starting', 'on']);
    const g = cam.grab(320)!;
    expect(g.frame).toMatchObject({ width: 320, height: 240 });
    expect(g.frame.data.length).toBe(320 * 240 * 4);
    expect(g.capturedAt).toBe(42);
    expect((await g.jpeg(160, 0.7)).type).toBe('image/jpeg');
    expect(drawn.at(-1)).toEqual([0, 0, 160, 120]);
    cam.stop();
    expect(track.stopped).toBe(true);
    expect(video.srcObject).toBeNull();
    expect(cam.state).toEqual({ kind: 'off' });
    expect(cam.grab(320)).toBeNull();
  });

  it('an unplugged camera (track ended) becomes the typed error state and releases the stream', async () => {
    const { deps, track } = fakeDeps();
    const states: CameraState[] = [];
    const cam = new CameraCapture((s) => states.push(s), deps);
    await cam.start();
    track.dispatchEvent(new Event('ended'));
    expect(cam.state).toEqual({ kind: 'error', code: 'ended', message: 'The camera was disconnected.' });
    expect(track.stopped).toBe(true);
  });

  it('maps getUserMedia failures to codes', async () => {
    const { deps } = fakeDeps({ name: 'NotAllowedError', message: 'denied' });
    const cam = new CameraCapture(() => {}, deps);
    await cam.start();
    expect(cam.state).toMatchObject({ kind: 'error', code: 'permission-denied' });
    expect(cameraErrorCode({ name: 'NotReadableError' })).toBe('in-use');
    expect(cameraErrorCode({ name: 'NotFoundError' })).toBe('not-found');
  });

  it('stop() during start() releases the stream that arrives later', async () => {
    const { deps, track } = fakeDeps();
    const cam = new CameraCapture(() => {}, deps);
    const starting = cam.start();
    cam.stop();
    await starting;
    expect(track.stopped).toBe(true);
    expect(cam.state).toEqual({ kind: 'off' });
  });

  it('fits within a max side without upscaling', () => {
    expect(fitWithin(1280, 720, 640)).toEqual({ width: 640, height: 360 });
    expect(fitWithin(320, 240, 640)).toEqual({ width: 320, height: 240 });
  });
});

describe('preview', () => {
  const jpeg = new Blob([new Uint8Array([1])], { type: 'image/jpeg' });
  const frame = (seq: number) =>
    VisionPreviewMessageSchema.parse({
      kind: 'frame',
      seq,
      capturedAt: seq,
      width: 320,
      height: 240,
      jpeg,
      objects: [
        { label: 'person', score: 0.9, box: { x0: 0.1, y0: 0, x1: 0.4, y1: 1 } },
        { label: 'cup', score: 0.8, box: { x0: 0.5, y0: 0.5, x1: 0.6, y1: 0.7 } },
      ],
    });

  it('keeps one object URL alive at a time and drops the picture when vision goes off', () => {
    const created: string[] = [];
    const revoked: string[] = [];
    const urls = {
      create: () => (created.push(`blob:${created.length}`), `blob:${created.length - 1}`),
      revoke: (u: string) => revoked.push(u),
    };
    let p: VisionPreview = { state: 'off', frame: null };
    p = reducePreview(p, { kind: 'state', state: 'on' }, urls);
    p = reducePreview(p, frame(0), urls);
    p = reducePreview(p, frame(1), urls);
    expect(p.frame?.url).toBe('blob:1');
    expect(revoked).toEqual(['blob:0']);
    p = reducePreview(p, { kind: 'state', state: 'paused' }, urls);
    expect(p).toMatchObject({ state: 'paused', frame: { url: 'blob:1' } });
    p = reducePreview(p, { kind: 'state', state: 'off' }, urls);
    expect(p).toEqual({ state: 'off', frame: null });
    expect(revoked).toEqual(['blob:0', 'blob:1']);
  });

  it('rejects malformed channel messages', () => {
    expect(VisionPreviewMessageSchema.safeParse({ kind: 'frame', seq: 0, jpeg: 'not a blob' }).success).toBe(false);
  });

  it('alt text lists the detections; boxes are mirrored like the picture', () => {
    const f = frame(0);
    if (f.kind !== 'frame') throw new Error('unreachable');
    expect(previewAltText(f.objects)).toBe('Camera view: a person and a cup.');
    expect(previewAltText([])).toBe('Camera view: nothing recognised.');
    expect(boxStyle(f.objects[0]!.box, true)).toEqual({ left: '60.00%', top: '0.00%', width: '30.00%', height: '100.00%' });
    expect(boxStyle(f.objects[0]!.box, false).left).toBe('10.00%');
  });
});
