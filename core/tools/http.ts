// One JSON GET helper for every tool client: timeout through AbortSignal, polite retries on 429/503 honouring
// Retry-After (waited through the injected clock), and classification of every failure into a FailureKind.
import { toolTunables } from '../tunables';
import type { Clock, FailureKind, FetchLike } from './types';

export interface JsonRequest {
  url: string;
  headers?: Record<string, string>;
  /** Caller's signal (barge-in); aborting it yields `cancelled`. */
  signal?: AbortSignal;
  timeoutMs?: number;
}

export type JsonOutcome =
  | { ok: true; status: number; body: unknown }
  | { ok: false; kind: FailureKind; status?: number; retryAfterMs?: number; detail: string };

export interface HttpDeps {
  fetch: FetchLike;
  clock: Clock;
  maxRetries?: number;
  maxRetryWaitMs?: number;
}

/** Parses Retry-After (delta seconds or an HTTP date) into milliseconds from now. */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

function isAbort(e: unknown): boolean {
  return e instanceof Error && (e.name === 'AbortError' || e.name === 'TimeoutError');
}

/** A single attempt, no retries. */
async function attempt(deps: HttpDeps, req: JsonRequest): Promise<JsonOutcome> {
  const timeout = AbortSignal.timeout(req.timeoutMs ?? toolTunables.requestTimeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
  const aborted = (): JsonOutcome =>
    req.signal?.aborted
      ? { ok: false, kind: 'cancelled', detail: 'caller aborted' }
      : { ok: false, kind: 'timeout', detail: 'request timed out' };
  let res: Response;
  try {
    res = await deps.fetch(req.url, { headers: { Accept: 'application/json', ...req.headers }, signal });
  } catch (e) {
    if (isAbort(e) || signal.aborted) return aborted();
    return { ok: false, kind: 'offline', detail: e instanceof Error ? e.message : 'network error' };
  }
  let text: string;
  try {
    text = await res.text();
  } catch (e) {
    if (isAbort(e) || signal.aborted) return aborted();
    return { ok: false, kind: 'offline', detail: 'connection dropped while reading' };
  }
  if (res.status === 429 || res.status === 503) {
    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), deps.clock.now()) ?? undefined;
    const kind: FailureKind = res.status === 429 ? 'rate_limited' : 'server_error';
    return { ok: false, kind, status: res.status, retryAfterMs, detail: `HTTP ${res.status}` };
  }
  if (res.status === 404) return { ok: false, kind: 'not_found', status: 404, detail: 'HTTP 404' };
  if (res.status >= 500) return { ok: false, kind: 'server_error', status: res.status, detail: `HTTP ${res.status}` };
  if (res.status >= 400) return { ok: false, kind: 'malformed', status: res.status, detail: `HTTP ${res.status}` };
  try {
    return { ok: true, status: res.status, body: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, kind: 'malformed', status: res.status, detail: 'response is not JSON' };
  }
}

/**
 * GET a JSON document. Retries 429 and 503 up to `maxRetries`, waiting Retry-After (or a default back-off that
 * doubles); a Retry-After longer than `maxRetryWaitMs` is not waited out — the caller reports rate_limited.
 */
export async function getJson(deps: HttpDeps, req: JsonRequest): Promise<JsonOutcome> {
  const maxRetries = deps.maxRetries ?? toolTunables.maxRetries;
  const maxWait = deps.maxRetryWaitMs ?? toolTunables.maxRetryWaitMs;
  let fallbackWait: number = toolTunables.defaultRetryWaitMs;
  for (let i = 0; ; i++) {
    const out = await attempt(deps, req);
    const retryable = !out.ok && out.status !== undefined && (out.status === 429 || out.status === 503);
    if (out.ok || !retryable || i >= maxRetries) return out;
    const wait = out.retryAfterMs ?? fallbackWait;
    if (wait > maxWait) return out;
    fallbackWait *= 2;
    try {
      await deps.clock.sleep(wait, req.signal);
    } catch {
      return { ok: false, kind: 'cancelled', detail: 'caller aborted during back-off' };
    }
  }
}
