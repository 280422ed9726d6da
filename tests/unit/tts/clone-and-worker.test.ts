import { beforeAll, describe, expect, it } from 'vitest';
import { deserializeVoice } from '../../../core/tts/voice-store';
import { cloneVoice, ConsentRequiredError } from '../../../models/tts/pocket/clone';
import { synthesize } from '../../../models/tts/pocket/generator';
import type { PocketModel } from '../../../models/tts/pocket/model';
import type { TtsWorkerEvent } from '../../../models/tts/pocket/protocol';
import { PocketWorkerHost } from '../../../models/tts/pocket/worker-host';
import { buildPocketBundle } from '../../fixtures/pocket/generate';
import { loadFixtureModel, NODE_SESSION_OPTIONS, ort } from './helpers';

const consent = { statement: 'This is my voice, or I have the speaker’s explicit permission.', acceptedAt: 1_700_000_000_000 };
/** 1 s at 24 kHz: the first 80 ms frame has amplitude 0.8 (RMS 0.8 for a DC level), the rest 0.2. */
const reference = () => Float32Array.from({ length: 24000 }, (_, i) => (i < 1920 ? 0.8 : 0.2));

describe('voice cloning', () => {
  let model: PocketModel;
  beforeAll(async () => {
    model = await loadFixtureModel();
  });

  it('refuses without consent, before running any graph', async () => {
    await expect(
      cloneVoice(model, { audio: reference(), sampleRate: 24000, name: 'me', consent: undefined }),
    ).rejects.toBeInstanceOf(ConsentRequiredError);
    await expect(
      cloneVoice(model, { audio: reference(), sampleRate: 24000, name: 'me', consent: { statement: '', acceptedAt: 1 } }),
    ).rejects.toBeInstanceOf(ConsentRequiredError);
  });

  it('encoder → bos_before_voice + latents → prefix pass → a voice state that speaks', async () => {
    const voice = await cloneVoice(model, { audio: reference(), sampleRate: 24000, name: 'me', consent, id: 'v1', now: () => 5 });
    // 24000 samples = 12 frames of 1920 (+ remainder) → 12 latents + bos = 13 prefix frames in every layer cache.
    const cache = voice.tensors.get('transformer.layers.3.self_attn/cache')!;
    expect(cache.dims).toEqual([2, 1, 13, 16, 64]);
    expect(voice.tensors.get('transformer.layers.3.self_attn/offset')!.data).toEqual(BigInt64Array.of(13n));
    const data = cache.data as Float32Array;
    expect(data[0]).toBeCloseTo(0.9); // slot 0 = bos_before_voice (its element 0 is 0.9)
    expect(data[1024]).toBeCloseTo(0.8); // slot 1 = first audio frame's latent (RMS 0.8)
    expect(voice.consent).toEqual(consent);
    const frames: Float32Array[] = [];
    const clone = { id: voice.id, name: voice.name, kind: 'clone' as const, tensors: voice.tensors };
    for await (const f of synthesize(model, 'hello world', clone, { temperature: 0 })) frames.push(f.pcm);
    expect(frames).toHaveLength(11);
    expect(Math.max(...frames[0]!.map(Math.abs))).toBeCloseTo(0.8, 2); // the clone's "timbre" reaches the decoder
  });

  it('resamples 48 kHz input before the encoder', async () => {
    const audio48 = Float32Array.from({ length: 48000 }, () => 0.5);
    const voice = await cloneVoice(model, { audio: audio48, sampleRate: 48000, name: 'me', consent });
    expect(voice.tensors.get('transformer.layers.0.self_attn/cache')!.dims[2]).toBe(13);
  });
});

describe('TTS worker host (message protocol)', () => {
  const events: TtsWorkerEvent[] = [];
  const transfers: unknown[] = [];
  const host = new PocketWorkerHost({
    ort,
    post: (e, t) => (events.push(e), transfers.push(...(t ?? []))),
    sessionOptions: NODE_SESSION_OPTIONS,
  });
  const files = Object.fromEntries(buildPocketBundle());

  beforeAll(async () => {
    await host.handle({ type: 'load', requestId: 'load', files });
  });

  it('loads and lists the preset voices', () => {
    expect(events[0]).toMatchObject({
      type: 'loaded',
      backend: 'wasm',
      sampleRate: 24000,
      voices: [
        { id: 'alba', kind: 'preset' },
        { id: 'marius', kind: 'preset' },
      ],
    });
  });

  it('speak streams audio frames (transferable Float32Array + requestId + index + text), then done', async () => {
    events.length = 0;
    await host.handle({ type: 'speak', requestId: 'r1', text: 'hello world', voiceId: 'alba', temperature: 0 });
    const audio = events.filter((e) => e.type === 'audio');
    expect(audio).toHaveLength(11);
    expect(audio[0]).toMatchObject({ requestId: 'r1', frameIndex: 0, chunkIndex: 0, text: 'Hello world.', sampleRate: 24000 });
    expect(transfers).toContain((audio[0] as { pcm: Float32Array }).pcm.buffer);
    expect(events.at(-1)).toEqual({ type: 'done', requestId: 'r1', frames: 11, cancelled: false });
  });

  it('cancel stops a running request within one frame', async () => {
    events.length = 0;
    const running = host.handle({ type: 'speak', requestId: 'r2', text: 'hello world', voiceId: 'alba' });
    const origPush = events.push.bind(events);
    events.push = (...e: TtsWorkerEvent[]) => {
      const n = origPush(...e);
      if (e.some((x) => x.type === 'audio' && x.frameIndex === 1)) void host.handle({ type: 'cancel', requestId: 'r2' });
      return n;
    };
    await running;
    events.push = origPush;
    expect(events.filter((e) => e.type === 'audio').map((e) => (e as { frameIndex: number }).frameIndex)).toEqual([0, 1]);
    expect(events.at(-1)).toEqual({ type: 'done', requestId: 'r2', frames: 2, cancelled: true });
  });

  it('typed errors: bad message, unknown voice, clone without consent', async () => {
    events.length = 0;
    await host.handle({ type: 'speak', requestId: 'r3' });
    await host.handle({ type: 'speak', requestId: 'r4', text: 'hi', voiceId: 'nobody' });
    await host.handle({ type: 'clone', requestId: 'r5', audio: reference(), sampleRate: 24000, name: 'me' });
    expect(events.map((e) => (e.type === 'error' ? [e.requestId, e.code] : e.type))).toEqual([
      ['r3', 'bad-message'],
      ['r4', 'unknown-voice'],
      ['r5', 'consent-required'],
    ]);
  });

  it('clone with consent returns a serialized voice that can be re-added and spoken', async () => {
    events.length = 0;
    await host.handle({ type: 'clone', requestId: 'r6', audio: reference(), sampleRate: 24000, name: 'me', consent });
    const cloned = events.find((e) => e.type === 'voice-cloned') as Extract<TtsWorkerEvent, { type: 'voice-cloned' }>;
    expect(cloned.voice.kind).toBe('clone');
    expect(deserializeVoice(cloned.bytes).bundleId).toBe('sidetalk-fixture/english_2026-04');
    events.length = 0;
    await host.handle({ type: 'speak', requestId: 'r7', text: 'hello', voiceId: cloned.voice.id, temperature: 0 });
    expect(events.at(-1)).toMatchObject({ type: 'done', requestId: 'r7', cancelled: false });
  });

  it("backend 'auto' runs the self-test once, posts the verdict, and stays on WASM for a silent WebGPU decoder", async () => {
    const { mimiDecoder } = await import('../../fixtures/pocket/graphs');
    const { mimiManifest } = await import('../../fixtures/pocket/generate');
    const silent = mimiDecoder(mimiManifest(), 'silent');
    const evs: TtsWorkerEvent[] = [];
    const gpuHost = new PocketWorkerHost({
      ort,
      post: (e) => evs.push(e),
      adapterIdentity: async () => ({ vendor: 'acme', architecture: 'x1', description: 'driver 7' }),
      sessionFactory: (graph, backend, bytes) =>
        ort.InferenceSession.create(
          graph === 'mimi_decoder' && backend === 'webgpu' ? silent : bytes,
          NODE_SESSION_OPTIONS[backend],
        ),
    });
    await gpuHost.handle({ type: 'load', requestId: 'load', files, backend: 'auto' });
    expect(evs[0]).toMatchObject({ type: 'verdict', verdict: { pass: false, reason: 'silent' } });
    // The voice status says why the GPU voice was not taken (docs/tts.md § The GPU voice).
    expect(evs[1]).toMatchObject({ type: 'loaded', backend: 'wasm', cpuReason: 'the GPU failed the voice self-test (silent)' });
    const key = (evs[0] as Extract<TtsWorkerEvent, { type: 'verdict' }>).key;
    evs.length = 0;
    await gpuHost.handle({
      type: 'load',
      requestId: 'load',
      files,
      backend: 'auto',
      verdicts: { [key]: { pass: false, at: 1 } },
    });
    expect(evs).toEqual([
      expect.objectContaining({ type: 'loaded', backend: 'wasm', cpuReason: expect.stringMatching(/earlier/) }),
    ]);
    evs.length = 0;
    await gpuHost.handle({ type: 'load', requestId: 'load', files, backend: 'auto', verdicts: { [key]: { pass: true, at: 1 } } });
    expect(evs).toHaveLength(1); // cached verdict: no test, straight to WebGPU
    expect(evs[0]).toMatchObject({ type: 'loaded', backend: 'webgpu' });
    expect(evs[0]).not.toHaveProperty('cpuReason');
  });

  it('a WebGPU decoder that passes the self-test but turns NaN mid-sentence: switch to WASM, gap-free audio, failing verdict stored', async () => {
    const { mimiDecoder, NAN_LATE_FRAME } = await import('../../fixtures/pocket/graphs');
    const { mimiManifest } = await import('../../fixtures/pocket/generate');
    const late = mimiDecoder(mimiManifest(), 'nan-late');
    const evs: TtsWorkerEvent[] = [];
    const gpuHost = new PocketWorkerHost({
      ort,
      post: (e) => evs.push(e),
      adapterIdentity: async () => ({ vendor: 'acme', architecture: 'x2', description: 'driver 9' }),
      sessionFactory: (graph, backend, bytes) =>
        ort.InferenceSession.create(
          graph === 'mimi_decoder' && backend === 'webgpu' ? late : bytes,
          NODE_SESSION_OPTIONS[backend],
        ),
    });
    await gpuHost.handle({ type: 'load', requestId: 'load', files, backend: 'auto' });
    const verdict = evs.find((e) => e.type === 'verdict') as Extract<TtsWorkerEvent, { type: 'verdict' }>;
    expect(verdict.verdict.pass).toBe(true); // the 4-frame self-test cannot see a failure that starts at frame 6
    expect(evs.find((e) => e.type === 'loaded')).toMatchObject({ backend: 'webgpu' });
    evs.length = 0;
    await gpuHost.handle({
      type: 'speak',
      requestId: 'g1',
      text: 'Hello there, how are you doing today?',
      voiceId: 'alba',
      temperature: 0,
    });
    const switched = evs.find((e) => e.type === 'backend') as Extract<TtsWorkerEvent, { type: 'backend' }>;
    expect(switched).toMatchObject({ backend: 'wasm', frameIndex: NAN_LATE_FRAME });
    expect(evs.find((e) => e.type === 'verdict')).toMatchObject({ key: verdict.key, verdict: { pass: false } });
    const audio = evs.filter((e) => e.type === 'audio') as Array<Extract<TtsWorkerEvent, { type: 'audio' }>>;
    expect(audio.length).toBeGreaterThan(NAN_LATE_FRAME + 1);
    for (const a of audio) expect(a.pcm.every(Number.isFinite)).toBe(true);
    // Frame indices run on without a gap or a repeat across the switch.
    expect(audio.map((a) => a.frameIndex)).toEqual(audio.map((_a, i) => i));
    expect(evs.at(-1)).toMatchObject({ type: 'done', requestId: 'g1', cancelled: false });
  });

  it('load applies the requested WASM thread count and reports it', async () => {
    const env = { wasm: { numThreads: 4 } };
    const evs: TtsWorkerEvent[] = [];
    const h = new PocketWorkerHost({
      ort: { ...ort, env } as typeof ort,
      post: (e) => evs.push(e),
      sessionOptions: NODE_SESSION_OPTIONS,
    });
    await h.handle({ type: 'load', requestId: 'load', files, backend: 'wasm', numThreads: 1 });
    expect(env.wasm.numThreads).toBe(1);
    expect(evs.at(-1)).toMatchObject({ type: 'loaded', threads: 1 });
  });
});
