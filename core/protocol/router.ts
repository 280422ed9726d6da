import { describeError, protocolError, type ProtocolError } from './errors';
import {
  definitionOf,
  REQUESTS,
  relayedMessage,
  requestMessage,
  type EventMessage,
  type RelayedThrough,
  type Reply,
  type RequestContext,
  type RequestMessage,
  type RequestPayload,
  type RequestResult,
  type RequestType,
  type Target,
} from './messages';
import { isAddressedTo, parseMessage, parseReply } from './validate';

type TypesFor<T extends Target> = {
  [K in RequestType]: (typeof REQUESTS)[K]['target'] extends T ? K : never;
}[RequestType];

type HandlerArgs<K extends RequestType> =
  RequestContext<K> extends undefined ? [payload: RequestPayload<K>] : [payload: RequestPayload<K>, context: RequestContext<K>];

/** A handler gets the validated payload and, for a relayed request, the validated context its relay added. */
export type Handlers<T extends Target> = {
  [K in TypesFor<T>]: (...args: HandlerArgs<K>) => Promise<RequestResult<K>> | RequestResult<K>;
};

type RelayAddition<K extends RequestType> = RequestContext<K> extends undefined ? void : RequestContext<K>;

/**
 * The relaying context's part of each request relayed through it: its own bookkeeping, and the context the request
 * declares (if any). It does not send anything: the router forwards the same type and payload itself.
 */
export type Relays<V extends Target> = {
  [K in RelayedThrough<V>]: (payload: RequestPayload<K>) => Promise<RelayAddition<K>> | RelayAddition<K>;
};

export interface RelayOptions<V extends Target> {
  relays: Relays<V>;
  /** Delivers the forwarded hop (the background makes sure the offscreen document exists first). */
  forward: Send;
  /** How long the target may take to answer a forwarded request. */
  timeoutMs?: number;
}

export type ErrorLogger = (error: ProtocolError, raw: unknown) => void;

/**
 * Builds the receiving boundary of one context. `handle` returns null for traffic meant for someone else, and
 * otherwise always resolves to a Reply: malformed input and handler failures become typed errors, never throws.
 * A request relayed through this context runs its relay part, then goes on to its target under the same name; the
 * target's answer, validated here, is the reply.
 */
export function createRequestRouter<T extends Target>(
  me: T,
  handlers: Handlers<T>,
  logError: ErrorLogger,
  relay?: RelayOptions<T>,
) {
  const table = handlers as unknown as Record<string, (payload: unknown, context: unknown) => unknown>;
  const relays = (relay?.relays ?? {}) as Record<string, (payload: unknown) => unknown>;

  function failed(error: ProtocolError, raw: unknown): Reply<unknown> {
    logError(error, raw);
    return { ok: false, error };
  }

  async function forward(msg: RequestMessage, part: (payload: unknown) => unknown, raw: unknown): Promise<Reply<unknown>> {
    let context: unknown;
    try {
      context = (await part(msg.payload)) ?? undefined;
    } catch (err) {
      return failed(protocolError('handler_failed', `"${msg.type}" failed: ${describeError(err)}`), raw);
    }
    const declared = definitionOf(msg.type).context;
    if (declared && !declared.safeParse(context).success)
      return failed(protocolError('handler_failed', `"${msg.type}": ${me} made a bad context for it`), raw);
    const message = relayedMessage(msg.type, msg.payload as never, context as never);
    const reply = await exchange(relay!.forward, message, msg.type, relay!.timeoutMs ?? 120_000);
    return reply.ok ? reply : failed(reply.error, raw);
  }

  return {
    handle(raw: unknown): Promise<Reply<unknown>> | null {
      if (!isAddressedTo(raw, me)) return null;
      const parsed = parseMessage(raw);
      if (!parsed.ok) {
        logError(parsed.error, raw);
        return Promise.resolve({ ok: false, error: parsed.error });
      }
      const msg = parsed.value;
      if (msg.kind === 'request' && msg.target === me && definitionOf(msg.type).via === me) {
        const part = relays[msg.type];
        if (!part || !relay)
          return Promise.resolve(failed(protocolError('unknown_type', `${me} does not relay "${msg.type}"`), raw));
        return forward(msg, part, raw);
      }
      const fn = msg.kind === 'request' ? table[msg.type] : undefined;
      if (!fn) {
        const error = protocolError('unknown_type', `${me} has no handler for "${msg.type}"`);
        logError(error, raw);
        return Promise.resolve({ ok: false, error });
      }
      const context = msg.kind === 'request' ? msg.context : undefined;
      return Promise.resolve()
        .then(() => fn(msg.payload, context))
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
export function sendRequest<T extends RequestType>(
  send: Send,
  type: T,
  payload: RequestPayload<T>,
  timeoutMs = 10_000,
): Promise<Reply<RequestResult<T>>> {
  return exchange(send, requestMessage(type, payload), type, timeoutMs);
}

/**
 * For the relaying context only: sends the forwarded hop of a relayed request it originates itself (the background
 * resuming downloads for a new offscreen document), with its context, as its relay would.
 */
export function sendRelayed<T extends RequestType>(
  send: Send,
  type: T,
  payload: RequestPayload<T>,
  context: RequestContext<T>,
  timeoutMs = 10_000,
): Promise<Reply<RequestResult<T>>> {
  return exchange(send, relayedMessage(type, payload, context), type, timeoutMs);
}

async function exchange<T extends RequestType>(
  send: Send,
  message: RequestMessage<T>,
  type: T,
  timeoutMs: number,
): Promise<Reply<RequestResult<T>>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<Reply<RequestResult<T>>>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, error: protocolError('timeout', `"${type}" got no answer in ${timeoutMs} ms`) }),
      timeoutMs,
    );
  });
  try {
    const answer = send(message).then(
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
