/**
 * A worker's host (models/workers/model-host.ts, models/tts/pocket/worker-host.ts) behind the `WorkerLike` face the
 * product's clients take (models/workers/worker-client.ts), in this process instead of a Worker thread: messages go
 * both ways on the next macrotask, as a worker's would, so a reply never runs inside the call that asked for it.
 * Nothing is cloned or transferred: both ends are the product's own code and leave the buffers they send alone.
 * Tunables messages are not delivered: in one process the host already reads the document's own registry
 * (core/tunables), and applying them there would tell the clients' listeners, which send them again, without end.
 */
import type { WorkerLike } from '../../models/workers/worker-client';

export function inProcessWorker(
  makeHost: (post: (event: unknown) => void) => { handle(message: unknown): Promise<void> },
): WorkerLike {
  const worker: WorkerLike = {
    onmessage: null,
    postMessage(message) {
      if ((message as { type?: unknown }).type === 'tunables') return;
      setImmediate(() => void host.handle(message));
    },
    terminate() {
      worker.onmessage = null;
    },
  };
  const host = makeHost((event) => setImmediate(() => worker.onmessage?.({ data: event } as MessageEvent)));
  return worker;
}
