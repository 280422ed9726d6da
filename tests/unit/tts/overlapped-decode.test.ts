/**
 * The overlapped WASM loop (docs/tts.md, "Overlapped decode"): Mimi in a second ORT instance behind the typed
 * decoder protocol, fed latent by latent while the flow LM runs ahead. Here the second instance is a second
 * onnxruntime-node session behind a real MessageChannel (structured clone + transfer, both ends validated); the bench
 * (bench/product/tts-loop.ts) runs it in a worker thread on onnxruntime-web and checks that the two really overlap.
 */
import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { applyOverrides, resetTunables } from '../../../core/tunables';
import { DecoderHost } from '../../../models/tts/pocket/decoder-host';
import type { DecoderPort, DecoderRequest } from '../../../models/tts/pocket/decoder-protocol';
import { chunksFor, synthesize, type AudioFrame } from '../../../models/tts/pocket/generator';
import type { PocketModel } from '../../../models/tts/pocket/model';
import type { TtsWorkerEvent } from '../../../models/tts/pocket/protocol';
import { PocketWorkerHost } from '../../../models/tts/pocket/worker-host';
import { buildPocketBundle } from '../../fixtures/pocket/generate';
import { loadFixtureModel, NODE_SESSION_OPTIONS, ort, seededRandom } from './helpers';

const TEXT = 'The keeper climbed the stairs. Then he lit the lamp, and the ships saw it far out at sea.';

/** A decoder "worker": DecoderHost on its own session at the far end of a MessageChannel; every request is logged. */
function channelDecoder(answerDelayMs = 0) {
  const { port1, port2 } = new MessageChannel();
  const host = new DecoderHost({
    ort,
    post: (event, transfer) => port1.postMessage(event, (transfer ?? []) as never),
    sessionOptions: NODE_SESSION_OPTIONS.wasm,
  });
  const sent: DecoderRequest[] = [];
  port1.on('message', (m) => void host.handle(m));
  let terminated = false;
  const port: DecoderPort = {
    onmessage: null,
    postMessage: (m, transfer) => (sent.push(m), port2.postMessage(m, (transfer ?? []) as never)),
    terminate: () => {
      terminated = true;
      port1.close();
      port2.close();
    },
  };
  let answered = 0;
  const answer = (data: unknown) => {
    if ((data as { type?: string }).type === 'pcm') answered++;
    port.onmessage?.({ data });
  };
  port2.on('message', (data) => {
    if (answerDelayMs) setTimeout(() => answer(data), answerDelayMs);
    else answer(data);
  });
  return { port, host, sent, isTerminated: () => terminated, answered: () => answered };
}

/** Counts the local mimi_decoder runs of a model (the single-instance loop's decoder). */
function countLocalDecodes(model: PocketModel): () => number {
  let n = 0;
  const s = model.session('mimi_decoder');
  const run = s.run.bind(s);
  (s as { run: typeof run }).run = (feeds) => (n++, run(feeds));
  return () => n;
}

async function speak(model: PocketModel, overlapDecode: boolean): Promise<AudioFrame[]> {
  const frames: AudioFrame[] = [];
  const opts = { temperature: 0.7, random: seededRandom(5), eosThreshold: Infinity, maxFramesPerChunk: 12, overlapDecode };
  for await (const f of synthesize(model, TEXT, model.voices.get('alba')!, opts)) frames.push(f);
  return frames;
}

afterEach(() => resetTunables());

describe('overlapped decode: Mimi in its own ORT instance', () => {
  it('gives the same samples in the same order as the single-instance loop, decoded by the second instance', async () => {
    const dec = channelDecoder();
    const model = await loadFixtureModel({}, { separateDecoder: { spawn: () => dec.port, numThreads: 1 } });
    expect(model.decodeLoop).toEqual({ kind: 'overlapped', decoderThreads: 1 });
    const localDecodes = countLocalDecodes(model);
    const overlapped = await speak(model, true);
    expect(localDecodes()).toBe(1); // the first frame, for first audio; the decoder runs it too, to keep its states
    expect(dec.host.runs).toBe(overlapped.length);
    const single = await speak(model, false);
    expect(localDecodes()).toBe(1 + single.length);
    // Every chunk runs to its 12 frames; each new chunk starts the decoder fresh.
    expect(overlapped.length).toBe(chunksFor(model, TEXT).length * 12);
    expect(overlapped.at(-1)!.chunkIndex).toBeGreaterThan(0);
    expect(overlapped.map((f) => [f.frameIndex, f.chunkIndex])).toEqual(single.map((f) => [f.frameIndex, f.chunkIndex]));
    let worst = 0;
    overlapped.forEach((f, k) => f.pcm.forEach((x, i) => (worst = Math.max(worst, Math.abs(x - single[k]!.pcm[i]!)))));
    expect(worst).toBe(0);
    await model.release();
    expect(dec.isTerminated()).toBe(true);
  });

  it('the flow LM runs ahead of the decoder by at most decodeAheadFrames latents', async () => {
    applyOverrides({ 'tts.decodeAheadFrames': 2 });
    // Answers held 30 ms, so the flow LM (a few ms a step here) would run far ahead if nothing held it back.
    const dec = channelDecoder(30);
    const model = await loadFixtureModel({}, { separateDecoder: { spawn: () => dec.port } });
    let maxInFlight = 0;
    for await (const f of synthesize(model, 'hello world', model.voices.get('alba')!, { temperature: 0 })) {
      maxInFlight = Math.max(maxInFlight, model.separateDecoder!.inFlight);
      // The first frame is decoded here too, so it leaves before the decoder's (held) answer for it came back.
      if (f.frameIndex === 0) expect([dec.answered(), model.separateDecoder!.inFlight]).toEqual([0, 1]);
    }
    expect(maxInFlight).toBe(2);
    await model.release();
  });

  it('a decoder told to drop queued requests never runs them and answers none of them', async () => {
    const dec = channelDecoder();
    const model = await loadFixtureModel({}, { separateDecoder: { spawn: () => dec.port } });
    const host = new DecoderHost({ ort, post: (e) => posted.push(e.type), sessionOptions: NODE_SESSION_OPTIONS.wasm });
    const posted: string[] = [];
    const bundle = model.bundle;
    await host.handle({
      type: 'init',
      graph: buildPocketBundle().get('mimi_decoder.int8') ?? buildPocketBundle().get('mimi_decoder.fp32')!,
      manifest: bundle.mimi_state_manifest,
      latentDim: bundle.latent_dim,
    });
    const latent = () => new Float32Array(bundle.latent_dim);
    const work = [0, 1, 2].map((seq) => host.handle({ type: 'decode', seq, latent: latent(), frames: 1, fresh: true }));
    void host.handle({ type: 'drop', through: 1 });
    await Promise.all(work);
    expect(host.runs).toBe(1); // only seq 2
    expect(posted).toEqual(['ready', 'pcm']);
    await model.release();
  });
});

describe('overlapped decode in the TTS worker', () => {
  const files = () => Object.fromEntries(buildPocketBundle());

  it('cancel mid-sentence stops both instances: nothing is posted after done, the queued decodes are dropped', async () => {
    applyOverrides({ 'tts.decodeAheadFrames': 3 });
    const events: TtsWorkerEvent[] = [];
    const dec = channelDecoder();
    const host = new PocketWorkerHost({
      ort,
      post: (e) => events.push(e),
      sessionOptions: NODE_SESSION_OPTIONS,
      spawnDecoder: () => dec.port,
    });
    await host.handle({ type: 'load', requestId: 'load', files: files() });
    expect(events[0]).toMatchObject({ type: 'loaded', decodeLoop: { kind: 'overlapped', decoderThreads: 1 } });
    events.length = 0;
    const push = events.push.bind(events);
    events.push = (...e: TtsWorkerEvent[]) => {
      if (e.some((x) => x.type === 'audio' && x.frameIndex === 3)) void host.handle({ type: 'cancel', requestId: 's' });
      return push(...e);
    };
    await host.handle({ type: 'speak', requestId: 's', text: TEXT, voiceId: 'alba' });
    const runsAtDone = dec.host.runs;
    expect(events.at(-1)).toMatchObject({ type: 'done', requestId: 's', cancelled: true });
    expect(events.filter((e) => e.type === 'audio').map((e) => (e as { frameIndex: number }).frameIndex)).toEqual([0, 1, 2, 3]);
    // Every latent sent after the last one answered was dropped, so the decoder stops too.
    const decodes = dec.sent.filter((m) => m.type === 'decode');
    const drop = dec.sent.filter((m) => m.type === 'drop').at(-1);
    expect(decodes.length).toBeGreaterThan(4);
    expect(drop).toEqual({ type: 'drop', through: (decodes.at(-1) as { seq: number }).seq });
    const count = events.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(events.length).toBe(count);
    expect(dec.host.runs).toBeLessThanOrEqual(runsAtDone + 1); // at most the one already running
    // The next request speaks normally on the same decoder.
    await host.handle({ type: 'speak', requestId: 't', text: 'hello world', voiceId: 'alba', temperature: 0 });
    expect(events.at(-1)).toEqual({ type: 'done', requestId: 't', frames: 11, cancelled: false });
  });

  it('falls back to the single-instance loop when the decoder worker cannot start, and says why', async () => {
    const cases: [string, () => DecoderPort][] = [
      [
        'no Worker',
        () => {
          throw new Error('Worker is not defined');
        },
      ],
      ['silent', () => ({ onmessage: null, postMessage: () => {}, terminate: () => (silentTerminated = true) })],
    ];
    let silentTerminated = false;
    applyOverrides({ 'tts.decoderStartTimeoutMs': 1000 });
    for (const [name, spawnDecoder] of cases) {
      const events: TtsWorkerEvent[] = [];
      const host = new PocketWorkerHost({ ort, post: (e) => events.push(e), sessionOptions: NODE_SESSION_OPTIONS, spawnDecoder });
      await host.handle({ type: 'load', requestId: 'load', files: files() });
      const loaded = events[0] as Extract<TtsWorkerEvent, { type: 'loaded' }>;
      expect(loaded.type, name).toBe('loaded');
      expect(loaded.decodeLoop.kind, name).toBe('single');
      expect(loaded.decodeLoop.reason, name).toMatch(/separate Mimi decoder did not start/);
      await host.handle({ type: 'speak', requestId: 's', text: 'hello world', voiceId: 'alba', temperature: 0 });
      expect(events.at(-1), name).toEqual({ type: 'done', requestId: 's', frames: 11, cancelled: false });
    }
    expect(silentTerminated).toBe(true);
  });

  it("decodeLoop 'single' in the load message keeps one instance", async () => {
    const events: TtsWorkerEvent[] = [];
    let spawned = 0;
    const host = new PocketWorkerHost({
      ort,
      post: (e) => events.push(e),
      sessionOptions: NODE_SESSION_OPTIONS,
      spawnDecoder: () => (spawned++, channelDecoder().port),
    });
    await host.handle({ type: 'load', requestId: 'load', files: files(), decodeLoop: 'single' });
    expect(events[0]).toMatchObject({ type: 'loaded', decodeLoop: { kind: 'single' } });
    expect(spawned).toBe(0);
  });
});
