/**
 * A worker's host (models/workers/model-host.ts, models/tts/pocket/worker-host.ts) behind the `WorkerLike` face the
 * product's clients take (models/workers/worker-client.ts), in this process instead of a Worker thread: messages go
 * both ways on the next macrotask, as a worker's would, so a reply never runs inside the call that asked for it.
 * Nothing is cloned or transferred: both ends are the product's own code and leave the buffers they send alone.
 */
import type { WorkerLike } from '../../models/workers/worker-client';

export function inProcessWorker(
  makeHost: (post: (event: unknown) => void) => { handle(message: unknown): Promise<void> },
): WorkerLike {
  const worker: WorkerLike = {
    onmessage: null,
    postMessage(message) {
      setImmediate(() => void host.handle(message));
    },
    terminate() {
      worker.onmessage = null;
    },
  };
  const host = makeHost((event) => setImmediate(() => worker.onmessage?.({ data: event } as MessageEvent)));
  return worker;
}
