import { describeError, protocolError, type ProtocolError } from './errors';
import {
  REQUESTS,
  requestMessage,
  type EventMessage,
  type Reply,
  type RequestPayload,
  type RequestResult,
  type RequestType,
  type Target,
} from './messages';
import { isAddressedTo, parseMessage, parseReply } from './validate';

type TypesFor<T extends Target> = {
  [K in RequestType]: (typeof REQUESTS)[K]['target'] extends T ? K : never;
}[RequestType];

export type Handlers<T extends Target> = {
  [K in TypesFor<T>]: (payload: RequestPayload<K>) => Promise<RequestResult<K>> | RequestResult<K>;
};

export type ErrorLogger = (error: ProtocolError, raw: unknown) => void;

/**
 * Builds the receiving boundary of one context. `handle` returns null for traffic meant for someone else, and
 * otherwise always resolves to a Reply: malformed input and handler failures become typed errors, never throws.
 */
export function createRequestRouter<T extends Target>(me: T, handlers: Handlers<T>, logError: ErrorLogger) {
  const table = handlers as unknown as Record<string, (payload: unknown) => unknown>;
  return {
    handle(raw: unknown): Promise<Reply<unknown>> | null {
      if (!isAddressedTo(raw, me)) return null;
      const parsed = parseMessage(raw);
      if (!parsed.ok) {
        logError(parsed.error, raw);
        return Promise.resolve({ ok: false, error: parsed.error });
      }
      const msg = parsed.value;
      const fn = msg.kind === 'request' ? table[msg.type] : undefined;
      if (!fn) {
        const error = protocolError('unknown_type', `${me} has no handler for "${msg.type}"`);
        logError(error, raw);
        return Promise.resolve({ ok: false, error });
      }
      return Promise.resolve()
        .then(() => fn(msg.payload))
        .then(
          (data): Reply<unknown> => ({ ok: true, data }),
          (err: unknown): Reply<unknown> => {
            const error = protocolError('handler_failed', `"${msg.type}" failed: ${describeError(err)}`);
            logError(error, raw);
            return { ok: false, error };
          },
        );
    },
  };
}

export type Send = (message: unknown) => Promise<unknown>;

/** Sends one typed request and validates the answer; a silent or slow receiver becomes a typed error. */
export async function sendRequest<T extends RequestType>(
  send: Send,
  type: T,
  payload: RequestPayload<T>,
  timeoutMs = 10_000,
): Promise<Reply<RequestResult<T>>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<Reply<RequestResult<T>>>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, error: protocolError('timeout', `"${type}" got no answer in ${timeoutMs} ms`) }),
      timeoutMs,
    );
  });
  try {
    const answer = send(requestMessage(type, payload)).then(
      (raw) => parseReply(type, raw),
      (err: unknown): Reply<RequestResult<T>> => ({ ok: false, error: protocolError('unavailable', describeError(err)) }),
    );
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Like sendRequest, but throws an Error with the protocol message; for UI code that shows errors itself. */
export async function call<T extends RequestType>(send: Send, type: T, payload: RequestPayload<T>, timeoutMs?: number) {
  const reply = await sendRequest(send, type, payload, timeoutMs);
  if (!reply.ok) throw new Error(reply.error.message);
  return reply.data;
}

export type EventListener = (event: EventMessage) => void;

/** Receiving boundary for broadcast events: only valid events reach the listener. */
export function createEventReceiver(listener: EventListener, logError: ErrorLogger) {
  return (raw: unknown): void => {
    if (typeof raw !== 'object' || raw === null || (raw as { kind?: unknown }).kind !== 'event') return;
    const parsed = parseMessage(raw);
    if (!parsed.ok) {
      logError(parsed.error, raw);
      return;
    }
    if (parsed.value.kind === 'event') listener(parsed.value);
  };
}
