/**
 * Dedicated module worker for the webcam detector (every model runs off the renderer main thread: ARCHITECTURE.md).
 * Create it from the offscreen document:
 *   new Worker(new URL('../../models/vision/vision.worker.ts', import.meta.url), { type: 'module' })
 * It owns its own ORT instance and GPU device; the scheduler keeps it off the GPU while speech stages run.
 */
import * as ort from 'onnxruntime-web/webgpu';
import { applyToTransformers, initGpuRuntime, type GpuRuntime } from '../gpu/runtime';
import type { GpuLike } from '../gpu/webgpu-types';
import { createVisionWorkerHandler } from './vision-worker-handler';
import type { VisionWorkerReply } from './vision-protocol';

declare const self: {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent) => void) | null;
  crossOriginIsolated?: boolean;
};

let runtime: GpuRuntime | null = null;

const handle = createVisionWorkerHandler({
  now: () => performance.now(),
  post: (reply: VisionWorkerReply) => self.postMessage(reply),
  async prepare(request) {
    runtime ??= await initGpuRuntime({
      ort: ort as unknown as Parameters<typeof initGpuRuntime>[0]['ort'],
      gpu: request.forceWasm ? null : ((navigator as unknown as { gpu?: GpuLike }).gpu ?? null),
      ...(request.wasmPaths ? { wasmPaths: request.wasmPaths } : {}),
      crossOriginIsolated: self.crossOriginIsolated === true,
      hardwareConcurrency: navigator.hardwareConcurrency,
      // Vision is background work: one thread leaves the cores to VAD, TTS and the avatar.
      maxThreads: 1,
    });
    const tjs = await import('@huggingface/transformers');
    applyToTransformers(tjs.env, runtime);
    tjs.env.allowLocalModels = false;
    if (request.remoteHost) tjs.env.remoteHost = request.remoteHost;
    return request.forceWasm ? 'wasm' : runtime.backend;
  },
});

self.onmessage = (event: MessageEvent) => void handle(event.data);
