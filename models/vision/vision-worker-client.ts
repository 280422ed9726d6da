/**
 * The offscreen document's side of the vision detector, over the one worker client (models/workers/worker-client.ts):
 * a request id per call, replies validated against the protocol, errors routed to their request. detect() transfers
 * the frame's buffer (zero-copy); the caller must not reuse the frame afterwards.
 */
import type { Detection } from '../../core/vision/types';
import { WorkerClient, type WorkerLike } from '../workers/worker-client';
import type { RgbaFrame } from './detector';
import { VisionWorkerReplySchema, type VisionWorkerReply, type VisionWorkerRequest } from './vision-protocol';

export class VisionWorkerError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'VisionWorkerError';
  }
}

/** A MessagePort served by the model worker, seen as a worker: replies that break the protocol are dropped here. */
export function portAsWorker(port: MessagePort): WorkerLike {
  const worker: WorkerLike = {
    onmessage: null,
    onerror: null,
    postMessage: (message, transfer) => port.postMessage(message, transfer ?? []),
    terminate: () => port.close(),
  };
  port.onmessage = (e: MessageEvent) => {
    const parsed = VisionWorkerReplySchema.safeParse(e.data);
    if (parsed.success) worker.onmessage?.({ data: parsed.data } as MessageEvent);
  };
  return worker;
}

export class VisionWorkerClient {
  private readonly channel: WorkerClient<VisionWorkerRequest, VisionWorkerReply>;

  constructor(worker: WorkerLike, onProgress?: (file: string, loaded: number, total: number) => void) {
    this.channel = new WorkerClient(() => worker, {
      name: 'vision detector',
      errorOf: (r) => (r.type === 'error' ? new VisionWorkerError(r.code, r.message) : null),
    });
    this.channel.onEvent = (r) => {
      if (r.type === 'progress') onProgress?.(r.file, r.loaded, r.total);
    };
  }

  load(options: { remoteHost?: string; wasmPaths?: string; forceWasm?: boolean; repo?: string; revision?: string } = {}) {
    return this.channel.request({ type: 'load', ...options }, ['loaded']).reply;
  }

  async detect(frame: RgbaFrame, capturedAt: number): Promise<Detection[]> {
    const { reply } = this.channel.request(
      {
        type: 'detect',
        width: frame.width,
        height: frame.height,
        data: frame.data as Uint8ClampedArray<ArrayBuffer>,
        capturedAt,
      },
      ['detections'],
      { transfer: [frame.data.buffer as ArrayBuffer] },
    );
    return (await reply).detections;
  }

  /** Releases the model; then closes the channel (the model worker stays, for speech). */
  async dispose(): Promise<void> {
    try {
      await this.channel.request({ type: 'dispose' }, ['disposed']).reply;
    } finally {
      this.channel.terminate();
    }
  }
}
