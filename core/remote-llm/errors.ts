// Typed failures of the remote model server, each with a short line the avatar can say. Messages are built from
// our own words plus a status code or a short server error text that has the API key scrubbed out: they can end up
// in a console or a bug report, and the key must never travel there.

export type RemoteLlmErrorKind =
  | 'unreachable' // connection refused, DNS, CORS/permission missing: no HTTP answer at all
  | 'http_error' // an HTTP answer that isn't 2xx
  | 'timeout' // no first data, or the stream stalled
  | 'malformed_stream' // not SSE / not the chat completions shape / runaway tool arguments
  | 'aborted'; // the user interrupted (barge-in, stop button)

export class RemoteLlmError extends Error {
  constructor(
    readonly kind: RemoteLlmErrorKind,
    message: string,
    /** HTTP status for http_error. */
    readonly status?: number,
    /** timeout: which wait ran out. */
    readonly phase?: 'first_token' | 'idle',
  ) {
    super(message);
    this.name = 'RemoteLlmError';
  }

  /** One short spoken line; the engine says it (or a fallback notice) instead of going silent. */
  get spoken(): string {
    return spokenLine(this.kind, this.status);
  }
}

export function spokenLine(kind: RemoteLlmErrorKind, status?: number): string {
  switch (kind) {
    case 'unreachable':
      return "My model server isn't answering. Is it running?";
    case 'http_error':
      if (status === 401 || status === 403) return 'My model server turned down the API key.';
      if (status === 404) return "My model server doesn't know that model or address.";
      if (status === 429) return 'My model server says it is too busy right now.';
      return 'My model server had a problem answering.';
    case 'timeout':
      return 'My model server is taking too long to answer.';
    case 'malformed_stream':
      return "I couldn't understand what my model server sent back.";
    case 'aborted':
      return '';
  }
}

/** Removes every occurrence of the secret (and its Bearer form) from a string, then trims it to a safe length. */
export function redact(text: string, secret: string | undefined, maxLength = 200): string {
  let out = text;
  if (secret && secret.length > 0) out = out.split(secret).join('[redacted]');
  // Servers sometimes echo a masked or partial key ("sk-abc…xyz"); drop anything that looks like a bearer token too.
  out = out.replace(/Bearer\s+\S+/gi, 'Bearer [redacted]');
  out = out.replace(/[\u0000-\u001f]+/g, ' ');
  return out.length > maxLength ? `${out.slice(0, maxLength)}…` : out;
}

export function isAbortError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'AbortError';
}
