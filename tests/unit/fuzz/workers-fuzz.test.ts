/**
 * Fuzz of the worker boundaries: the model worker (ModelHost), the Pocket TTS worker (PocketWorkerHost over the
 * real fixture bundle and onnxruntime-node) and the vision worker handler. Each gets thousands of random and damaged
 * messages (seeded, deterministic); every one must end in a typed event (an 'error' with a known code for the bad
 * ones), `handle` must never reject, and the worker must still do real work afterwards.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { TtsWorkerEvent } from '../../../models/tts/pocket/protocol';
import { PocketWorkerHost } from '../../../models/tts/pocket/worker-host';
import {
  VisionWorkerReplySchema,
  VisionWorkerRequestSchema,
  type VisionWorkerReply,
} from '../../../models/vision/vision-protocol';
import { createVisionWorkerHandler } from '../../../models/vision/vision-worker-handler';
import { ModelWorkerRequestSchema } from '../../../models/workers/model-protocol';
import { buildPocketBundle } from '../../fixtures/pocket/generate';
import { NODE_SESSION_OPTIONS, ort } from '../tts/helpers';
import { arbitrary, hostileInputs, mutate, Rng } from './arbitrary';
import { hostWithEvents } from '../helpers/model-host';

const consent = { statement: 'This is my voice, or I have the speaker’s explicit permission.', acceptedAt: 1_700_000_000_000 };

async function settle<T>(work: Promise<T>, label: string): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw new Error(`${label}: handle() rejected: ${err instanceof Error ? err.message : String(err)}`);
  }
}

describe('model worker (ModelHost) under fuzz', () => {
  it('answers every bad message with a typed error and never rejects', async () => {
    // No GPU, no network: 'init' is fuzzed through the schema only (a real init would build an ORT runtime).
    const { host, events } = hostWithEvents();
    const rng = new Rng(0x5bee);
    const valid = [
      { type: 'load', requestId: 'load-1', remoteHost: 'http://127.0.0.1:9/', asrFamily: 'moonshine', parts: ['asr', 'llm'] },
      { type: 'asr', requestId: 'a1', pcm: new Float32Array(1600) },
      { type: 'llm', requestId: 'l1', messages: [{ role: 'user', content: 'hi' }], maxNewTokens: 8 },
      { type: 'cancel', requestId: 'l1' },
      { type: 'gpu-stats', requestId: 'g1' },
      { type: 'init', requestId: 'init-1', wasmPaths: 'chrome-extension://x/ort/' },
    ];
    let bad = 0;
    let accepted = 0;
    let i = 0;
    for (const input of hostileInputs(rng, 3000, valid)) {
      i++;
      const schemaOk = ModelWorkerRequestSchema.safeParse(input).success;
      if (schemaOk && (input as { type: string }).type === 'init') {
        accepted++;
        continue; // accepted by the schema; not run (see above)
      }
      const before = events.length;
      await settle(host.handle(input), `input #${i}`);
      const out = events.slice(before);
      if (!schemaOk) {
        bad++;
        expect(out).toHaveLength(1);
        expect(out[0]).toMatchObject({ type: 'error', code: 'bad-message' });
        expect((out[0] as { message: string }).message.length).toBeGreaterThan(0);
      } else {
        accepted++;
        // Valid but the worker is not initialised: a typed not-ready with the request's id (nothing for cancel and
        // reset), or the GPU counters, which need no model.
        for (const e of out) {
          if (e.type === 'gpu-stats') continue;
          expect(e.type).toBe('error');
          expect((e as { code: string }).code).toBe('not-ready');
          const id = (input as { requestId?: string }).requestId;
          if ((input as { type: string }).type !== 'cancel') expect((e as { requestId?: string }).requestId).toBe(id);
        }
      }
    }
    expect(bad).toBeGreaterThan(1000);
    expect(accepted).toBeGreaterThan(100);
  });
});

const TTS_ERROR_CODES = new Set([
  'bad-message',
  'not-loaded',
  'load-failed',
  'unknown-voice',
  'synthesis-failed',
  'consent-required',
  'cloning-unavailable',
  'bad-audio',
  'bad-voice-file',
]);
const TTS_EVENT_TYPES = new Set(['loaded', 'verdict', 'audio', 'done', 'backend', 'voice-cloned', 'voices', 'error']);

function checkTtsEvent(e: TtsWorkerEvent): void {
  expect(TTS_EVENT_TYPES.has(e.type)).toBe(true);
  if (e.type === 'error') {
    expect(TTS_ERROR_CODES.has(e.code)).toBe(true);
    expect(typeof e.message).toBe('string');
    expect(e.message.length).toBeGreaterThan(0);
  }
  if (e.type === 'audio') {
    expect(e.pcm).toBeInstanceOf(Float32Array);
    expect(e.pcm.every(Number.isFinite)).toBe(true);
  }
}

describe('Pocket TTS worker host under fuzz', () => {
  const events: TtsWorkerEvent[] = [];
  const host = new PocketWorkerHost({ ort, post: (e) => events.push(e), sessionOptions: NODE_SESSION_OPTIONS });
  let voiceBytes: Uint8Array;

  beforeAll(async () => {
    await host.handle({ type: 'load', requestId: 'load-0', files: Object.fromEntries(buildPocketBundle()) });
    expect(events.at(-1)).toMatchObject({ type: 'loaded', voices: [{ id: 'alba' }, { id: 'marius' }] });
    // A genuine cloned voice file, to damage below.
    events.length = 0;
    await host.handle({
      type: 'clone',
      requestId: 'c0',
      audio: new Float32Array(24000).fill(0.3),
      sampleRate: 24000,
      name: 'me',
      consent,
    });
    const cloned = events.find((e) => e.type === 'voice-cloned');
    expect(cloned).toBeDefined();
    voiceBytes = new Uint8Array((cloned as { bytes: Uint8Array }).bytes);
  });

  it('types every random/damaged message (speak, cancel, clone, add-voice, list) and keeps speaking', async () => {
    const rng = new Rng(0x77500);
    const valid = [
      { type: 'speak', requestId: 'r1', text: 'hello world', voiceId: 'alba', temperature: 0 },
      { type: 'cancel', requestId: 'r1' },
      { type: 'clone', requestId: 'c1', audio: new Float32Array(4000).fill(0.2), sampleRate: 24000, name: 'x', consent },
      { type: 'add-voice', requestId: 'add-0', bytes: voiceBytes },
      { type: 'list-voices', requestId: 'list-0' },
    ];
    events.length = 0;
    let i = 0;
    let errors = 0;
    for (const input of hostileInputs(rng, 1000, valid)) {
      i++;
      const type = (input as { type?: unknown } | null)?.type;
      if (type === 'load') continue; // a load replaces the model; fuzzed on its own host below
      const before = events.length;
      const work = host.handle(input);
      // Long or odd speak requests are cancelled at once: exercises cancel-while-queued and bounds the test time.
      const requestId = (input as { requestId?: unknown } | null)?.requestId;
      if (type === 'speak' && typeof requestId === 'string' && requestId) void host.handle({ type: 'cancel', requestId });
      await settle(work, `input #${i}`);
      const out = events.slice(before);
      // Every message is answered, except a well-formed cancel, which only stops its request.
      const silentCancel = type === 'cancel' && (input as { requestId?: unknown }).requestId;
      if (!silentCancel) expect(out.length, `input #${i} got no answer`).toBeGreaterThan(0);
      for (const e of out) checkTtsEvent(e);
      errors += out.filter((e) => e.type === 'error').length;
    }
    expect(errors).toBeGreaterThan(500);
    const codes = new Set(events.flatMap((e) => (e.type === 'error' ? [e.code] : [])));
    for (const code of ['bad-message', 'unknown-voice', 'consent-required']) expect(codes).toContain(code);

    // Still healthy: a clean request after the storm speaks in full.
    events.length = 0;
    await host.handle({ type: 'speak', requestId: 'after', text: 'hello world', voiceId: 'alba', temperature: 0 });
    expect(events.filter((e) => e.type === 'audio').length).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ type: 'done', requestId: 'after', cancelled: false });
  });

  it('refuses damaged voice files (bit flips, truncation, grown lengths) with bad-voice-file, never a crash', async () => {
    const rng = new Rng(0x70);
    let accepted = 0;
    for (let i = 0; i < 400; i++) {
      const bytes = new Uint8Array(voiceBytes);
      const how = rng.int(0, 3);
      if (how === 0) {
        for (let k = 0; k < rng.int(1, 8); k++) {
          const at = rng.int(0, bytes.length - 1);
          bytes[at] = bytes[at]! ^ (1 << rng.int(0, 7));
        }
      }
      const damaged =
        how === 1
          ? bytes.subarray(0, rng.int(0, bytes.length - 1))
          : how === 2
            ? (() => {
                // Header-length and tensor-length fields set to hostile values.
                const dv = new DataView(bytes.buffer);
                dv.setUint32(
                  rng.pick([9, 13 + rng.int(0, 200)]),
                  rng.pick([0, 0xffffffff, 0x7fffffff, bytes.length, 65 * 1024]),
                  true,
                );
                return bytes;
              })()
            : how === 3
              ? rng.bytes(rng.int(0, 4096))
              : bytes;
      events.length = 0;
      await settle(host.handle({ type: 'add-voice', requestId: `add-${i}`, bytes: damaged }), `voice #${i}`);
      expect(events).toHaveLength(1);
      const e = events[0]!;
      checkTtsEvent(e);
      if (e.type === 'voices') accepted++;
      else expect(e).toMatchObject({ type: 'error', code: 'bad-voice-file' });
    }
    // A flipped bit inside float data can still be a valid voice; most damage must be refused.
    expect(accepted).toBeLessThan(200);
  });

  it('a fresh host answers hostile load messages with load-failed / bad-message', async () => {
    const rng = new Rng(0x10ad);
    const posted: TtsWorkerEvent[] = [];
    const fresh = new PocketWorkerHost({
      ort,
      post: (e) => posted.push(e),
      sessionOptions: NODE_SESSION_OPTIONS,
    });
    const bundle = Object.fromEntries(buildPocketBundle());
    const names = Object.keys(bundle);
    for (let i = 0; i < 60; i++) {
      const files: Record<string, unknown> = {};
      for (const name of names) {
        const r = rng.next();
        files[name] =
          r < 0.15
            ? rng.bytes(rng.int(0, 64))
            : r < 0.25
              ? 'http://127.0.0.1:9/x.onnx'
              : r < 0.3
                ? arbitrary(rng, 1)
                : bundle[name];
      }
      if (rng.chance(0.2)) delete files[rng.pick(names)];
      const msg = rng.chance(0.8)
        ? { type: 'load', requestId: `load-${i}`, files }
        : mutate(rng, { type: 'load', requestId: `load-${i}`, files, backend: 'wasm' });
      posted.length = 0;
      await settle(fresh.handle(msg), `load #${i}`);
      expect(posted.length).toBeGreaterThan(0);
      for (const e of posted) checkTtsEvent(e);
      const last = posted.at(-1)!;
      expect(['loaded', 'error']).toContain(last.type);
      if (last.type === 'error') expect(['load-failed', 'bad-message']).toContain(last.code);
    }
  });
});

describe('vision worker handler under fuzz', () => {
  it('answers each request once with a schema-valid reply; bad ones with bad-request', async () => {
    const replies: VisionWorkerReply[] = [];
    const handle = createVisionWorkerHandler({
      prepare: () => Promise.reject(new Error('no runtime in this test')),
      post: (r) => replies.push(r),
      now: () => 0,
    });
    const rng = new Rng(0x715);
    const valid = [
      { type: 'load', requestId: 'v1', remoteHost: 'http://127.0.0.1:9/', forceWasm: true },
      { type: 'detect', requestId: 'v2', width: 2, height: 2, data: new Uint8ClampedArray(16), capturedAt: 5 },
      { type: 'dispose', requestId: 'v3' },
    ];
    let bad = 0;
    let i = 0;
    for (const input of hostileInputs(rng, 3000, valid)) {
      i++;
      const schemaOk = VisionWorkerRequestSchema.safeParse(input).success;
      const before = replies.length;
      await settle(handle(input), `input #${i}`);
      const out = replies.slice(before);
      expect(out, `input #${i}`).toHaveLength(1);
      expect(VisionWorkerReplySchema.safeParse(out[0]).success).toBe(true);
      if (!schemaOk) {
        bad++;
        expect(out[0]).toMatchObject({ type: 'error', code: 'bad-request' });
        expect((out[0] as { message: string }).message.length).toBeLessThanOrEqual(300);
      } else {
        expect(out[0]!.requestId).toBe((input as { requestId: string }).requestId);
        if (out[0]!.type === 'error') expect(['load-failed', 'not-loaded']).toContain(out[0]!.code);
      }
    }
    expect(bad).toBeGreaterThan(1000);
  });
});

describe('BroadcastChannel boundaries (audio to the side panel, playback back to the engine)', () => {
  it('the side panel AudioBridge plays only valid chunks and ignores junk without throwing', async () => {
    const { AudioBridge } = await import('../../../components/conversation/audio-bridge');
    const { AUDIO_CHANNEL_NAME, AudioChannelMessageSchema } = await import('../../../core/protocol');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const played: Float32Array[] = [];
    const interrupts: number[] = [];
    const bridge = new AudioBridge();
    bridge.attach({
      speakChunk: async (pcm: Float32Array) => void played.push(pcm),
      interrupt: () => void interrupts.push(1),
      pause: () => {},
    } as never);
    const sender = new BroadcastChannel(AUDIO_CHANNEL_NAME);
    const rng = new Rng(0xa0d10);
    const valid = [
      { kind: 'chunk', turnId: '3', seq: 0, sampleRate: 24000, samples: new Float32Array(1920), text: 'Hi.', final: false },
      { kind: 'stop', turnId: '3' },
    ];
    let validChunks = 0;
    let rejected = 0;
    const inputs = [...hostileInputs(rng, 1500, valid)];
    for (const input of inputs) {
      const r = AudioChannelMessageSchema.safeParse(input);
      if (!r.success) rejected++;
      else if (r.data.kind === 'chunk') validChunks++;
      try {
        sender.postMessage(input);
      } catch {
        // Not structured-cloneable (never reaches the channel): skip.
      }
    }
    // A sentinel after the storm proves the receiver is still alive and in order.
    sender.postMessage({
      kind: 'chunk',
      turnId: '999',
      seq: 1,
      sampleRate: 24000,
      samples: new Float32Array([0.25]),
      final: true,
    });
    await vi.waitFor(() => expect(played.at(-1)?.[0]).toBe(0.25), { timeout: 10_000 });
    for (const pcm of played) expect(pcm).toBeInstanceOf(Float32Array);
    expect(played.length).toBeLessThanOrEqual(validChunks + 1);
    expect(rejected).toBeGreaterThan(300);
    expect(warn.mock.calls.length).toBeGreaterThan(300);
    sender.close();
    bridge.close();
    warn.mockRestore();
  });

  it('PlaybackMessageSchema (what the engine accepts from the side panel) types every input', async () => {
    const { PlaybackMessageSchema } = await import('../../../core/protocol');
    const rng = new Rng(0x91a7);
    const valid = [
      { type: 'started', turnId: '4' },
      { type: 'ended', turnId: '4', interrupted: true },
      { type: 'ended', turnId: '4', interrupted: true, playedMs: 1234.5 },
      { type: 'level', rms: 0.3 },
      { type: 'played', at: 1.7e12, sampleRate: 24_000, samples: new Float32Array(512).fill(0.1) },
    ];
    let ok = 0;
    for (const input of hostileInputs(rng, 3000, valid)) {
      const r = PlaybackMessageSchema.safeParse(input);
      if (!r.success) continue;
      ok++;
      // What reaches the engine is always a finite level, finite played samples at a finite time, or a bounded,
      // non-empty turn id.
      if (r.data.type === 'level') expect(Number.isFinite(r.data.rms)).toBe(true);
      else if (r.data.type === 'played') {
        expect(Number.isFinite(r.data.at) && r.data.samples.every(Number.isFinite)).toBe(true);
        expect(r.data.samples.length).toBeGreaterThan(0);
      } else expect(r.data.turnId.length).toBeGreaterThan(0);
      // A played amount is a finite, non-negative duration when there is one.
      if (r.data.type === 'ended' && r.data.playedMs !== undefined) {
        expect(Number.isFinite(r.data.playedMs)).toBe(true);
        expect(r.data.playedMs).toBeGreaterThanOrEqual(0);
      }
    }
    expect(ok).toBeGreaterThan(100);
  });
});
