import { readFileSync } from 'node:fs';
import * as ortNode from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { ModelHost } from '../../../models/workers/model-host';
import type { ModelWorkerEvent } from '../../../models/workers/model-protocol';
import { SILERO_PATH } from '../../fixtures/audio/conversation-sim';

/** The real Silero model through onnxruntime-node; the execution providers the worker asks for are WASM's names. */
function host() {
  const events: ModelWorkerEvent[] = [];
  const ort = {
    env: { wasm: {} as Record<string, unknown> },
    Tensor: ortNode.Tensor,
    InferenceSession: { create: (bytes: Uint8Array) => ortNode.InferenceSession.create(bytes) },
  };
  const adapterRequests: unknown[] = [];
  const gpu = { requestAdapter: async (o: unknown) => (adapterRequests.push(o), null) };
  const h = new ModelHost({
    ort: ort as never,
    gpu,
    crossOriginIsolated: true,
    hardwareConcurrency: 8,
    post: (e) => events.push(e),
    fetchBytes: async () => new Uint8Array(readFileSync(SILERO_PATH)),
  });
  return { h, events, ort, adapterRequests };
}

const init = { type: 'init', requestId: 'i1', vadModelUrl: 'x/vad.onnx', wasmPaths: 'x/ort/' };

describe('the VAD-only model worker', () => {
  it('asks for no GPU, runs one WASM thread, and answers frames', async () => {
    const { h, events, ort, adapterRequests } = host();
    await h.handle({ ...init, vadOnly: true });
    expect(events[0]).toMatchObject({ type: 'ready', backend: 'wasm', numThreads: 1 });
    expect(adapterRequests).toEqual([]);
    expect(ort.env.wasm.numThreads).toBe(1);
    await h.handle({ type: 'vad', requestId: 'v1', frame: new Float32Array(512) });
    const vad = events.find((e) => e.type === 'vad') as { prob: number } | undefined;
    expect(vad?.prob).toBeGreaterThanOrEqual(0);
    expect(vad?.prob).toBeLessThan(0.5);
  });

  it('the speech worker (no vadOnly) asks for the GPU and takes more threads', async () => {
    const { h, events, ort, adapterRequests } = host();
    await h.handle(init);
    expect(events[0]).toMatchObject({ type: 'ready', backend: 'wasm' });
    expect(adapterRequests.length).toBeGreaterThan(0);
    expect(ort.env.wasm.numThreads).toBeGreaterThan(1);
  });
});
