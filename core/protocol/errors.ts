/** Typed errors at a protocol boundary. They are returned or logged; they never throw out of a listener. */
export type ProtocolErrorCode =
  | 'malformed'
  | 'unknown_type'
  | 'wrong_target'
  | 'handler_failed'
  | 'timeout'
  | 'unavailable';

export interface ProtocolError {
  code: ProtocolErrorCode;
  message: string;
}

export function protocolError(code: ProtocolErrorCode, message: string): ProtocolError {
  return { code, message };
}

export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err);
  } catch {
    return String(err);
  }
}
