import { z } from 'zod';
import { protocolError, type ProtocolError } from './errors';
import {
  EVENTS,
  ProtocolErrorSchema,
  REQUESTS,
  TargetSchema,
  type EventMessage,
  type Reply,
  type RequestMessage,
  type RequestResult,
  type RequestType,
  type Target,
} from './messages';

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: ProtocolError };

const EnvelopeSchema = z.object({
  kind: z.enum(['request', 'event']),
  type: z.string().max(64),
  target: TargetSchema.optional(),
  payload: z.unknown(),
});

/** Bounded: a hostile message (thousands of unknown keys, huge key names) must not produce a huge error/log line. */
const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

function issues(err: z.ZodError): string {
  const text = err.issues
    .slice(0, 5)
    .map((i) => clip(`${i.path.length ? i.path.map(String).join('.') : '(root)'}: ${i.message}`, 200))
    .join('; ');
  return clip(text, 600);
}

function hasKey<K extends string>(record: Record<K, unknown>, key: string): key is K {
  return Object.prototype.hasOwnProperty.call(record, key);
}

/**
 * Parses anything that arrived over runtime messaging. Returns a typed error instead of throwing, so a bad sender
 * can never crash the receiving context.
 */
export function parseMessage(raw: unknown): Parsed<RequestMessage | EventMessage> {
  const env = EnvelopeSchema.safeParse(raw);
  if (!env.success) return { ok: false, error: protocolError('malformed', `Not a Sidetalk message: ${issues(env.error)}`) };
  const { kind, type, target, payload } = env.data;
  if (kind === 'request') {
    if (!hasKey(REQUESTS, type)) return { ok: false, error: protocolError('unknown_type', `Unknown request type "${type}"`) };
    const def = REQUESTS[type];
    if (target !== def.target) {
      return { ok: false, error: protocolError('wrong_target', `"${type}" goes to ${def.target}, not ${target ?? 'nobody'}`) };
    }
    const body = def.payload.safeParse(payload);
    if (!body.success)
      return { ok: false, error: protocolError('malformed', `Bad payload for "${type}": ${issues(body.error)}`) };
    return { ok: true, value: { kind, type, target: def.target, payload: body.data } as RequestMessage };
  }
  if (!hasKey(EVENTS, type)) return { ok: false, error: protocolError('unknown_type', `Unknown event type "${type}"`) };
  const body = EVENTS[type].safeParse(payload);
  if (!body.success) return { ok: false, error: protocolError('malformed', `Bad payload for "${type}": ${issues(body.error)}`) };
  return { ok: true, value: { kind, type, payload: body.data } as EventMessage };
}

/** True when a raw message is addressed to `me` (cheap pre-filter so contexts ignore each other's traffic). */
export function isAddressedTo(raw: unknown, me: Target): boolean {
  return typeof raw === 'object' && raw !== null && (raw as { target?: unknown }).target === me;
}

/** Validates a reply on the sender's side against the result schema of the request it answers. */
export function parseReply<T extends RequestType>(type: T, raw: unknown): Reply<RequestResult<T>> {
  if (raw === undefined) return { ok: false, error: protocolError('unavailable', `No context answered "${type}"`) };
  const shape = z
    .union([z.object({ ok: z.literal(true), data: z.unknown() }), z.object({ ok: z.literal(false), error: ProtocolErrorSchema })])
    .safeParse(raw);
  if (!shape.success) return { ok: false, error: protocolError('malformed', `Bad reply to "${type}": ${issues(shape.error)}`) };
  if (!shape.data.ok) return shape.data;
  const data = REQUESTS[type].result.safeParse(shape.data.data);
  if (!data.success) return { ok: false, error: protocolError('malformed', `Bad result of "${type}": ${issues(data.error)}`) };
  return { ok: true, data: data.data as RequestResult<T> };
}
