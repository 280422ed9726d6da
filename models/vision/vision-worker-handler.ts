/**
 * The vision worker's logic, separate from the Worker global so Node tests drive it directly: validates each request,
 * keeps at most one detector, answers every request exactly once (by request id). Detections run one at a time because
 * the caller (core/vision/scheduler.ts) admits one frame at a time; a second detect while one runs still queues
 * behind it inside ORT rather than failing.
 */
// Type-only: the worker must share its ORT before transformers.js is first imported, so Detector loads lazily.
import type { Detector, DetectorDevice } from './detector';
import { VisionWorkerRequestSchema, type VisionWorkerReply, type VisionWorkerRequest } from './vision-protocol';

export interface VisionWorkerDeps {
  /** Sets up ORT/transformers for this context and returns the backend to load on. */
  prepare(request: Extract<VisionWorkerRequest, { type: 'load' }>): Promise<DetectorDevice>;
  post(reply: VisionWorkerReply): void;
  now(): number;
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function createVisionWorkerHandler(deps: VisionWorkerDeps): (raw: unknown) => Promise<void> {
  let detector: Detector | null = null;

  return async (raw) => {
    const parsed = VisionWorkerRequestSchema.safeParse(raw);
    if (!parsed.success) {
      // Echo the id only when it is one the reply schema accepts (else the caller would drop the reply as invalid).
      const rawId = typeof raw === 'object' && raw !== null ? (raw as { requestId?: unknown }).requestId : undefined;
      const requestId = typeof rawId === 'string' && rawId.length > 0 && rawId.length <= 64 ? rawId : 'unknown';
      const issue = parsed.error.issues[0];
      const why = issue ? `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}` : 'bad request';
      deps.post({ type: 'error', requestId, code: 'bad-request', message: why.slice(0, 300) });
      return;
    }
    const request = parsed.data;
    switch (request.type) {
      case 'load': {
        const started = deps.now();
        try {
          const device = await deps.prepare(request);
          await detector?.dispose();
          detector = null;
          const { Detector: DetectorClass } = await import('./detector');
          detector = await DetectorClass.load({
            device,
            ...(request.repo ? { repo: request.repo } : {}),
            ...(request.revision ? { revision: request.revision } : {}),
            onProgress: (event) => {
              const e = event as { status?: string; file?: string; loaded?: number; total?: number };
              if (e.status === 'progress' && e.file) {
                deps.post({
                  type: 'progress',
                  requestId: request.requestId,
                  file: e.file,
                  loaded: e.loaded ?? 0,
                  total: e.total ?? 0,
                });
              }
            },
          });
          deps.post({ type: 'loaded', requestId: request.requestId, device, ms: deps.now() - started });
        } catch (error) {
          deps.post({ type: 'error', requestId: request.requestId, code: 'load-failed', message: message(error) });
        }
        return;
      }
      case 'detect': {
        if (!detector) {
          deps.post({ type: 'error', requestId: request.requestId, code: 'not-loaded', message: 'detect before load' });
          return;
        }
        const started = deps.now();
        try {
          const detections = await detector.detect({ data: request.data, width: request.width, height: request.height });
          deps.post({
            type: 'detections',
            requestId: request.requestId,
            capturedAt: request.capturedAt,
            ms: deps.now() - started,
            detections,
          });
        } catch (error) {
          deps.post({ type: 'error', requestId: request.requestId, code: 'detect-failed', message: message(error) });
        }
        return;
      }
      case 'dispose': {
        const old = detector;
        detector = null;
        await old?.dispose();
        deps.post({ type: 'disposed', requestId: request.requestId });
        return;
      }
    }
  };
}
