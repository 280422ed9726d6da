import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TtsClient } from '../../../entrypoints/offscreen/tts-client';
import { ttsTunables } from '../../../core/tunables';
import type { TtsWorkerEvent } from '../../../models/tts/pocket/protocol';
import { FakeWorker } from '../helpers/fake-worker';

type Fake = FakeWorker<TtsWorkerEvent>;
const made = () => FakeWorker.made as Fake[];

const loaded = (threads: number): Omit<Extract<TtsWorkerEvent, { type: 'loaded' }>, 'requestId'> => ({
  type: 'loaded',
  backend: 'wasm',
  bundleId: 'b/en',
  sampleRate: 24000,
  voices: [],
  threads,
  decodeLoop: { kind: 'single' },
});

describe('TtsClient (offscreen face of the voice worker)', () => {
  beforeEach(() => {
    FakeWorker.made = [];
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('a load that hangs is retried once on a fresh worker with one thread, and one thread sticks', async () => {
    const client = new TtsClient(() => new FakeWorker<TtsWorkerEvent>());
    const first = client.load({ 'bundle.json': 'u' }, { backend: 'auto', verdicts: {} });
    const w1 = made()[0]!;
    expect(w1.sent[0]).toMatchObject({ type: 'load', backend: 'auto' });
    expect(w1.sent[0]).not.toHaveProperty('numThreads');
    await vi.advanceTimersByTimeAsync(ttsTunables.loadTimeoutMs + 1);
    expect(w1.terminated).toBe(true);
    const w2 = made()[1]!;
    expect(w2.sent[0]).toMatchObject({ type: 'load', backend: 'auto', numThreads: 1 });
    w2.reply('load', loaded(1));
    await expect(first).resolves.toMatchObject({ type: 'loaded', threads: 1 });
    expect([client.singleThread, client.threads, client.loaded]).toEqual([true, 1, true]);
    const again = client.load({ 'bundle.json': 'u' });
    expect(w2.sent[1]).toMatchObject({ numThreads: 1 });
    w2.reply('load', loaded(1));
    await again;
  });

  it('a second hang is reported as an error rather than retried forever', async () => {
    const client = new TtsClient(() => new FakeWorker<TtsWorkerEvent>());
    const p = client.load({});
    const caught = p.catch((e: Error) => e);
    await vi.advanceTimersByTimeAsync(2 * ttsTunables.loadTimeoutMs + 2);
    expect(((await caught) as Error).message).toMatch(/did not load within 90 s/);
    expect(made()).toHaveLength(2);
  });

  it('routes speak frames and errors by request, even with two in flight', async () => {
    vi.useRealTimers();
    const client = new TtsClient(() => new FakeWorker<TtsWorkerEvent>());
    const w = made()[0]!;
    const framesA: number[] = [];
    const a = client.speak('one', 'alba', new AbortController().signal, (f) => framesA.push(f.frameIndex));
    const idA = w.idOf('speak');
    const b = client.speak('two', 'nobody', new AbortController().signal, () => undefined);
    const idB = w.idOf('speak');
    expect(idA).not.toBe(idB);
    w.answer({ type: 'error', requestId: idB, code: 'unknown-voice', message: 'no voice "nobody"' });
    await expect(b).rejects.toMatchObject({ name: 'TtsWorkerError', code: 'unknown-voice' });
    w.answer({
      type: 'audio',
      requestId: idA,
      frameIndex: 0,
      chunkIndex: 0,
      text: 'one',
      sampleRate: 24000,
      pcm: new Float32Array(4),
    });
    w.answer({ type: 'done', requestId: idA, frames: 1, cancelled: false });
    await a;
    expect(framesA).toEqual([0]);
  });

  it('passes verdicts and backend switches up', async () => {
    const client = new TtsClient(() => new FakeWorker<TtsWorkerEvent>());
    const seen: Array<[string, boolean]> = [];
    client.onVerdict = (key, v) => seen.push([key, v.pass]);
    const p = client.load({});
    const w = made()[0]!;
    w.answer({ type: 'verdict', key: 'k1', verdict: { pass: true, at: 1 } });
    w.reply('load', { ...loaded(2), backend: 'webgpu' });
    await p;
    expect(client.backend).toBe('webgpu');
    w.answer({ type: 'backend', backend: 'wasm', reason: 'nan', frameIndex: 6 });
    w.answer({ type: 'verdict', key: 'k1', verdict: { pass: false, reason: 'nan', at: 2 } });
    expect([client.backend, client.backendReason]).toEqual(['wasm', 'nan']);
    expect(seen).toEqual([
      ['k1', true],
      ['k1', false],
    ]);
  });

  it('keeps why a load stayed on the CPU (a failed self-test), and forgets it at the next load', async () => {
    const client = new TtsClient(() => new FakeWorker<TtsWorkerEvent>());
    const first = client.load({});
    const w = made()[0]!;
    w.reply('load', { ...loaded(2), cpuReason: 'the GPU failed the voice self-test (silent)' });
    await first;
    expect([client.backend, client.gpuRefused]).toEqual(['wasm', 'the GPU failed the voice self-test (silent)']);
    const second = client.load({});
    w.reply('load', { ...loaded(2), backend: 'webgpu' });
    await second;
    expect([client.backend, client.gpuRefused]).toEqual(['webgpu', null]);
  });
});
