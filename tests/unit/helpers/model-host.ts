import { ModelHost } from '../../../models/workers/model-host';
import type { ModelWorkerEvent } from '../../../models/workers/model-protocol';

/** A model worker's logic with no GPU and no ORT runtime built, and the events it posts. */
export function hostWithEvents(): { host: ModelHost; events: ModelWorkerEvent[] } {
  const events: ModelWorkerEvent[] = [];
  const host = new ModelHost({
    ort: { env: { wasm: {} } },
    gpu: null,
    crossOriginIsolated: false,
    hardwareConcurrency: 2,
    post: (e) => events.push(e),
  });
  return { host, events };
}
