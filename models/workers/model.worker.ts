/**
 * The model worker: VAD, ASR and the LLM share one onnxruntime-web instance and one GPU device here. The ORT setup
 * import must stay first so transformers.js finds the shared instance when it loads.
 */
import { sharedOrtInstance } from './ort-setup';
import type { OrtNamespace } from '../gpu/runtime';
import { ModelHost } from './model-host';

declare const self: {
  postMessage(message: unknown, transfer: Transferable[]): void;
  onmessage: ((e: MessageEvent) => void) | null;
  navigator: Navigator & { gpu?: unknown };
  crossOriginIsolated: boolean;
};

const host = new ModelHost({
  ort: sharedOrtInstance as unknown as OrtNamespace,
  gpu: self.navigator.gpu ?? null,
  crossOriginIsolated: self.crossOriginIsolated,
  hardwareConcurrency: self.navigator.hardwareConcurrency,
  post: (event, transfer) => self.postMessage(event, transfer ?? []),
});

self.onmessage = (e: MessageEvent) => void host.handle(e.data);
