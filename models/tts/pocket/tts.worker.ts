/**
 * Pocket TTS module worker. Created by the offscreen document:
 *   new Worker(new URL('../../models/tts/pocket/tts.worker.ts', import.meta.url), { type: 'module' })
 * It uses the shared onnxruntime-web instance if one is registered on globalThis (Symbol.for('onnxruntime')),
 * else imports onnxruntime-web. WASM is single-threaded (multi-thread session creation hangs in some environments,
 * pocket-tts.md §6). All logic lives in worker-host.ts.
 */
import * as ortWeb from 'onnxruntime-web/webgpu'; // same build (and wasm file) as the model worker
import type { OrtLike } from './ort-types';
import { PocketWorkerHost } from './worker-host';
import { serializeRuns } from '../../workers/run-lane';
import type { DecoderPort } from './decoder-protocol';

// The project's tsconfig has no "webworker" lib; declare the few members of the worker scope used here.
declare const self: {
  postMessage(message: unknown, transfer: Transferable[]): void;
  onmessage: ((e: MessageEvent) => void) | null;
  location: { origin: string };
  navigator: Navigator;
};

const shared = (globalThis as Record<symbol, unknown>)[Symbol.for('onnxruntime')] as OrtLike | undefined;
const ort = (shared ?? ortWeb) as unknown as OrtLike & { env?: { wasm?: { numThreads?: number; wasmPaths?: unknown } } };
// A clone's graphs may run while a sentence is spoken: one run at a time on this instance (run-lane.ts).
serializeRuns((ort as unknown as { InferenceSession: never }).InferenceSession);
if (ort.env?.wasm) {
  // Measured on the H200 host (bench/results/2026-12-02b-h200.md): one thread gives 0.5–0.7× real time, four give
  // 1.0–1.1×, so playback would run dry on one. Threads need cross-origin isolation (the extension has it); the session
  // creation hang reported with threads elsewhere is covered by the e2e tests in headless Chromium.
  const cores = self.navigator.hardwareConcurrency || 1;
  ort.env.wasm.numThreads = (self as unknown as { crossOriginIsolated?: boolean }).crossOriginIsolated
    ? Math.max(1, Math.min(4, cores - 1))
    : 1;
  // ORT wasm files are copied into the extension build (never a CDN).
  ort.env.wasm.wasmPaths ??= new URL('/ort/', self.location.origin).href;
}

/** The separate Mimi decoder's nested worker (docs/tts.md, "Overlapped decode"); Worker types it for the DOM. */
function spawnDecoder(): DecoderPort {
  const worker = new Worker(new URL('./decoder.worker.ts', import.meta.url), { type: 'module' });
  const port: DecoderPort = {
    onmessage: null,
    onerror: null,
    postMessage: (message, transfer) => worker.postMessage(message, transfer ?? []),
    terminate: () => worker.terminate(),
  };
  worker.onmessage = (e) => port.onmessage?.(e);
  worker.onerror = (e) => port.onerror?.(e);
  return port;
}

const host = new PocketWorkerHost({
  ort,
  // A nested worker needs the Worker constructor in this worker's scope (Chrome has it); else one instance.
  ...(typeof Worker === 'function' ? { spawnDecoder } : {}),
  post: (event, transfer) => self.postMessage(event, transfer ?? []),
  fetchBytes: async (url) => {
    // Weights come from the weights manager's cache (same key transformers.js uses), never straight off the network.
    const cached = await caches
      .open('transformers-cache')
      .then((c) => c.match(url))
      .catch(() => undefined);
    const res = cached ?? (url.startsWith(self.location.origin) ? await fetch(url) : undefined);
    if (!res) throw new Error(`${url.split('/').pop()} is not downloaded yet`);
    if (!res.ok) throw new Error(`fetch ${url}: HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  },
  adapterIdentity: async () => {
    const gpu = (
      self.navigator as Navigator & {
        gpu?: { requestAdapter(): Promise<{ info?: { vendor: string; architecture: string; description: string } } | null> };
      }
    ).gpu;
    const adapter = await gpu?.requestAdapter();
    if (!adapter?.info) return null;
    return { vendor: adapter.info.vendor, architecture: adapter.info.architecture, description: adapter.info.description };
  },
});

self.onmessage = (e: MessageEvent) => {
  void host.handle(e.data);
};
