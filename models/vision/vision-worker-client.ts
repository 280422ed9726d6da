/**
 * The offscreen document's side of the vision worker: one promise per request, matched by id, replies validated.
 * detect() transfers the frame's buffer to the worker (zero-copy); the caller must not reuse the frame afterwards.
 */
import type { Detection } from '../../core/vision/types';
import type { RgbaFrame } from './detector';
import { VisionWorkerReplySchema, type VisionWorkerReply, type VisionWorkerRequest } from './vision-protocol';

export interface WorkerLike {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  terminate(): void;
}

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type Pending = { resolve: (reply: VisionWorkerReply) => void };

export class VisionWorkerError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'VisionWorkerError';
  }
}

export class VisionWorkerClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly worker: WorkerLike,
    private readonly onProgress?: (file: string, loaded: number, total: number) => void,
  ) {
    worker.addEventListener('message', (event) => {
      const parsed = VisionWorkerReplySchema.safeParse(event.data);
      if (!parsed.success) return;
      const reply = parsed.data;
      if (reply.type === 'progress') {
        this.onProgress?.(reply.file, reply.loaded, reply.total);
        return;
      }
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      waiter.resolve(reply);
    });
  }

  private request(body: WithoutId<VisionWorkerRequest>, transfer: Transferable[] = []): Promise<VisionWorkerReply> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve });
      this.worker.postMessage({ ...body, id }, transfer);
    });
  }

  private static check<T extends VisionWorkerReply['type']>(
    reply: VisionWorkerReply,
    type: T,
  ): Extract<VisionWorkerReply, { type: T }> {
    if (reply.type === 'error') throw new VisionWorkerError(reply.code, reply.message);
    if (reply.type !== type) throw new VisionWorkerError('bad-reply', `expected ${type}, got ${reply.type}`);
    return reply as Extract<VisionWorkerReply, { type: T }>;
  }

  async load(options: { remoteHost?: string; wasmPaths?: string; forceWasm?: boolean; repo?: string; revision?: string } = {}) {
    return VisionWorkerClient.check(await this.request({ type: 'load', ...options }), 'loaded');
  }

  async detect(frame: RgbaFrame, capturedAt: number): Promise<Detection[]> {
    const reply = await this.request(
      {
        type: 'detect',
        width: frame.width,
        height: frame.height,
        data: frame.data as Uint8ClampedArray<ArrayBuffer>,
        capturedAt,
      },
      [frame.data.buffer as ArrayBuffer],
    );
    return VisionWorkerClient.check(reply, 'detections').detections;
  }

  /** Releases the model; then terminates the worker (its GPU device goes with it). */
  async dispose(): Promise<void> {
    try {
      VisionWorkerClient.check(await this.request({ type: 'dispose' }), 'disposed');
    } finally {
      this.worker.terminate();
    }
  }
}
