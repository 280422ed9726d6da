// The HTTP edge shared by the chat stream and the models listing: one AbortController that the caller's signal and
// our watchdog both abort, and one place that turns "what went wrong" into a typed RemoteLlmError. fetch and the
// clock are injected: the extension passes the real ones, tests a local server and a hand-driven clock.
import type { Clock, FetchLike } from '../tools/types';
import { isAbortError, redact, RemoteLlmError } from './errors';

export interface RemoteDeps {
  fetch: FetchLike;
  clock: Pick<Clock, 'sleep'>;
}

export type WatchPhase = 'first_token' | 'idle';

/** Aborts the request when a phase's deadline passes; re-arming replaces the previous deadline. */
export class Watchdog {
  private cancelCurrent: (() => void) | null = null;
  fired: WatchPhase | null = null;

  constructor(
    private readonly clock: Pick<Clock, 'sleep'>,
    private readonly onFire: () => void,
  ) {}

  arm(phase: WatchPhase, ms: number): void {
    this.disarm();
    const ctrl = new AbortController();
    this.cancelCurrent = () => ctrl.abort();
    this.clock.sleep(ms, ctrl.signal).then(
      () => {
        if (ctrl.signal.aborted) return;
        this.fired = phase;
        this.onFire();
      },
      () => undefined, // cancelled by re-arm or disarm
    );
  }

  disarm(): void {
    this.cancelCurrent?.();
    this.cancelCurrent = null;
  }
}

/** Links the caller's signal into a controller we can also abort ourselves (watchdog, consumer stopped reading). */
export function linkedController(signal: AbortSignal | undefined): { ctrl: AbortController; unlink: () => void } {
  const ctrl = new AbortController();
  if (!signal) return { ctrl, unlink: () => undefined };
  const onAbort = (): void => ctrl.abort();
  if (signal.aborted) ctrl.abort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return { ctrl, unlink: () => signal.removeEventListener('abort', onAbort) };
}

/** Classifies a thrown fetch/read error. The original error text is NOT copied: it may quote the URL or headers. */
export function classifyFailure(
  e: unknown,
  ctx: { userSignal: AbortSignal | undefined; watchdog: Watchdog; during: 'connect' | 'stream' },
): RemoteLlmError {
  if (e instanceof RemoteLlmError) return e;
  if (ctx.userSignal?.aborted) return new RemoteLlmError('aborted', 'The request was cancelled.');
  if (ctx.watchdog.fired) {
    const what =
      ctx.watchdog.fired === 'first_token' ? 'No answer from the model server in time' : 'The model server stopped sending';
    return new RemoteLlmError('timeout', `${what}.`, undefined, ctx.watchdog.fired);
  }
  if (isAbortError(e)) return new RemoteLlmError('aborted', 'The request was cancelled.');
  return new RemoteLlmError(
    'unreachable',
    ctx.during === 'connect' ? 'Could not connect to the model server.' : 'The connection to the model server was lost.',
  );
}

/** Reads a short, redacted reason from an error response body ({"error":{"message":…}} or plain text). */
export async function httpError(res: Response, apiKey: string | undefined): Promise<RemoteLlmError> {
  let detail = '';
  try {
    const body = (await res.text()).slice(0, 2000);
    try {
      const json = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
      const msg = typeof json.error === 'string' ? json.error : (json.error?.message ?? json.message);
      detail = typeof msg === 'string' ? msg : '';
    } catch {
      detail = /<html/i.test(body) ? '' : body;
    }
  } catch {
    // Body unreadable: the status is enough.
  }
  const reason = detail ? `: ${redact(detail, apiKey, 160)}` : '';
  return new RemoteLlmError('http_error', `The model server answered HTTP ${res.status}${reason}`, res.status);
}
