import { describe, expect, it } from 'vitest';
import { GpuLostError, ModelWorkerClient } from '../../../entrypoints/offscreen/model-client';
import type { ModelWorkerEvent } from '../../../models/workers/model-protocol';
import { FakeWorker } from '../helpers/fake-worker';

type Fake = FakeWorker<ModelWorkerEvent>;
const made = () => FakeWorker.made as Fake[];

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('ModelWorkerClient after a GPU device loss', () => {
  it('replaces the worker with a WASM-only one, reloads the models there, and makes requests wait for it', async () => {
    FakeWorker.made = [];
    const client = new ModelWorkerClient(() => new FakeWorker<ModelWorkerEvent>());
    const w1 = made()[0]!;
    const ready = client.init('/ort/');
    w1.reply('init', { type: 'ready', backend: 'webgpu', fallbackReason: null, numThreads: 1 });
    await ready;
    const loaded = client.load('https://hub/', 'moonshine', ['asr', 'llm']);
    w1.reply('load', { type: 'loaded', parts: ['asr', 'llm'], device: 'webgpu' });
    await loaded;
    const pendingAsr = client.transcribe(new Float32Array(160), new AbortController().signal); // never answered
    await tick();
    let restarted: Promise<void> | null = null;
    client.onRestart = (p) => (restarted = p);

    w1.answer({ type: 'backend', backend: 'wasm', reason: 'WebGPU device lost (unknown)' });
    expect(w1.terminated).toBe(true);
    await expect(pendingAsr).rejects.toBeInstanceOf(GpuLostError); // the old worker's job: the turn sees the loss
    const w2 = made()[1]!;
    expect(w2.sent[0]).toMatchObject({ type: 'init', wasmPaths: '/ort/', forceWasm: true });
    const asr = client.transcribe(new Float32Array(160), new AbortController().signal);
    w2.reply('init', { type: 'ready', backend: 'wasm', fallbackReason: 'WebGPU unavailable in this context', numThreads: 1 });
    await tick();
    expect(w2.sent[1]).toMatchObject({ type: 'load', remoteHost: 'https://hub/', parts: ['asr', 'llm'], device: 'wasm' });
    expect(w2.sent.some((m) => m.type === 'asr')).toBe(false); // waits for the reload
    w2.reply('load', { type: 'loaded', parts: ['asr', 'llm'], device: 'wasm' });
    await restarted;
    await tick();
    w2.reply('asr', { type: 'asr-result', text: 'hello', confidence: 0.9, ids: [7], draftAccepted: 0 });
    // A late answer of the replaced worker changes nothing.
    w1.answer({ type: 'asr-result', requestId: 'asr-1', text: 'stale', confidence: 1, ids: [], draftAccepted: 0 });
    expect(await asr).toEqual({ text: 'hello', confidence: 0.9, ids: [7], draftAccepted: 0 });
    expect(client.backend).toBe('wasm');
    // Later loads stay on WASM.
    void client.load('https://hub/', 'moonshine', ['asr']);
    expect(w2.sent.at(-1)).toMatchObject({ type: 'load', device: 'wasm' });
  });

  it('a job the worker reports as failed by the device loss rejects with GpuLostError; other failures keep their message', async () => {
    FakeWorker.made = [];
    const client = new ModelWorkerClient(() => new FakeWorker<ModelWorkerEvent>());
    const w = made()[0]!;
    const lost = client.transcribe(new Float32Array(160), new AbortController().signal);
    await tick();
    w.reply('asr', { type: 'error', code: 'device-lost', message: 'mapAsync: device destroyed' });
    await expect(lost).rejects.toBeInstanceOf(GpuLostError);
    const failed = client.transcribe(new Float32Array(160), new AbortController().signal);
    await tick();
    w.reply('asr', { type: 'error', code: 'asr-failed', message: 'bad input' });
    await expect(failed).rejects.toThrow('bad input');
  });
});

describe('ModelWorkerClient: the LLM decode path it reports', () => {
  it('takes the path from the load, then the change the worker posts when a static step failed', async () => {
    FakeWorker.made = [];
    const client = new ModelWorkerClient(() => new FakeWorker<ModelWorkerEvent>());
    const w = made()[0]!;
    const loaded = client.load('https://hub/', 'moonshine', ['llm']);
    w.reply('load', { type: 'loaded', parts: ['llm'], device: 'webgpu', llmDecode: { decode: 'captured' } });
    await loaded;
    expect(client.llmDecode).toEqual({ decode: 'captured' });
    const plain = { decode: 'plain' as const, plainReason: 'a static decode step failed: device lost' };
    w.answer({ type: 'llm-decode', status: plain });
    expect(client.llmDecode).toEqual(plain);
  });
});
