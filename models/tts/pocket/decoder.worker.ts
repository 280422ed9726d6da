/**
 * The Mimi decoder's own module worker, spawned by the TTS worker (tts.worker.ts) so that decoding frame n runs on a
 * second onnxruntime-web instance while the flow LM computes frame n+1 (docs/tts.md, "Overlapped decode"). Its
 * threads come with `init`; all logic lives in decoder-host.ts.
 */
import * as ortWeb from 'onnxruntime-web/webgpu'; // the TTS worker's build, so the same wasm file in /ort/
import type { OrtLike } from './ort-types';
import { DecoderHost } from './decoder-host';

declare const self: {
  postMessage(message: unknown, transfer: Transferable[]): void;
  onmessage: ((e: MessageEvent) => void) | null;
  location: { origin: string };
};

const ort = ortWeb as unknown as OrtLike & { env?: { wasm?: { numThreads?: number; wasmPaths?: unknown } } };
// ORT wasm files are copied into the extension build (never a CDN).
if (ort.env?.wasm) ort.env.wasm.wasmPaths ??= new URL('/ort/', self.location.origin).href;

const host = new DecoderHost({ ort, post: (event, transfer) => self.postMessage(event, transfer ?? []) });
self.onmessage = (e: MessageEvent) => void host.handle(e.data);
