/** A Node worker thread behind the `DecoderPort` face the product's loop takes (models/tts/pocket/decoder-protocol.ts). */
import { Worker } from 'node:worker_threads';
import type { DecoderPort } from '../../models/tts/pocket/decoder-protocol';

export function nodeDecoderPort(script: URL, env: Record<string, string>): DecoderPort {
  const worker = new Worker(script, { env: { ...process.env, ...env } });
  const port: DecoderPort = {
    onmessage: null,
    onerror: null,
    postMessage: (message, transfer) => worker.postMessage(message, (transfer ?? []) as never),
    terminate: () => void worker.terminate(),
  };
  worker.on('message', (data) => port.onmessage?.({ data }));
  worker.on('error', (e) => port.onerror?.(e));
  if (process.env.SIDETALK_DEBUG_DECODER) {
    worker.on('online', () => console.error('decoder thread online'));
    worker.on('exit', (c) => console.error(`decoder thread exit ${c}`));
  }
  return port;
}
