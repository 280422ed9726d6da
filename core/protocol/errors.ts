/** Typed errors at a protocol boundary. They are returned or logged; they never throw out of a listener. */
/** `forbidden`: this sender may not ask for this (core/protocol/senders.ts). */
export type ProtocolErrorCode =
  'malformed' | 'unknown_type' | 'wrong_target' | 'handler_failed' | 'timeout' | 'unavailable' | 'forbidden';

export interface ProtocolError {
  code: ProtocolErrorCode;
  message: string;
}

export function protocolError(code: ProtocolErrorCode, message: string): ProtocolError {
  return { code, message };
}

/** Never throws and always returns a string, whatever was thrown (undefined, a symbol, a circular or null-prototype object). */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  try {
    const json = JSON.stringify(err);
    if (typeof json === 'string') return json;
  } catch {
    // fall through
  }
  try {
    return String(err);
  } catch {
    return Object.prototype.toString.call(err);
  }
}
