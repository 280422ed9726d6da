/**
 * The bench's stand-in for the extension's decoder worker (models/tts/pocket/decoder.worker.ts): a Node worker
 * thread with its own onnxruntime-web instance (ort-shim.ts, SIDETALK_THREADS threads) running the product's
 * DecoderHost. Bundled next to product-tts-loop.mjs (rolldown.config.mjs).
 */
import { parentPort } from 'node:worker_threads';
import * as ort from './ort-shim';
import { DecoderHost } from '../../models/tts/pocket/decoder-host';
import type { OrtLike } from '../../models/tts/pocket/ort-types';

const port = parentPort!;
const host = new DecoderHost({
  ort: ort as unknown as OrtLike,
  post: (event, transfer) => port.postMessage(event, (transfer ?? []) as never),
});
port.on('message', (m) => void host.handle(m));
