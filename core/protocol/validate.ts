import { z } from 'zod';
import { protocolError, type ProtocolError } from './errors';
import {
  definitionOf,
  EVENTS,
  ProtocolErrorSchema,
  REQUESTS,
  TargetSchema,
  type EventMessage,
  type Reply,
  type RequestDefinition,
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
  relayedBy: TargetSchema.optional(),
  payload: z.unknown(),
  context: z.unknown().optional(),
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
  const { kind, type, target, relayedBy, payload, context } = env.data;
  if (kind === 'request') {
    if (!hasKey(REQUESTS, type)) return { ok: false, error: protocolError('unknown_type', `Unknown request type "${type}"`) };
    const def = definitionOf(type);
    const hop = checkHop(type, def, target, relayedBy);
    if (!hop.ok) return hop;
    const body = def.payload.safeParse(payload);
    if (!body.success)
      return { ok: false, error: protocolError('malformed', `Bad payload for "${type}": ${issues(body.error)}`) };
    if (!hop.value.forwarded) {
      if (context !== undefined)
        return {
          ok: false,
          error: protocolError('malformed', `"${type}" gets its context from ${def.via}, not from its sender`),
        };
      return { ok: true, value: { kind, type, target: hop.value.to, payload: body.data } as RequestMessage };
    }
    const forwarded = { kind, type, target: def.target, relayedBy: def.via, payload: body.data };
    if (!def.context) {
      if (context !== undefined) return { ok: false, error: protocolError('malformed', `"${type}" carries no context`) };
      return { ok: true, value: forwarded as RequestMessage };
    }
    const added = def.context.safeParse(context);
    if (!added.success)
      return { ok: false, error: protocolError('malformed', `Bad context for "${type}": ${issues(added.error)}`) };
    return { ok: true, value: { ...forwarded, context: added.data } as RequestMessage };
  }
  if (!hasKey(EVENTS, type)) return { ok: false, error: protocolError('unknown_type', `Unknown event type "${type}"`) };
  const body = EVENTS[type].safeParse(payload);
  if (!body.success) return { ok: false, error: protocolError('malformed', `Bad payload for "${type}": ${issues(body.error)}`) };
  return { ok: true, value: { kind, type, payload: body.data } as EventMessage };
}

/**
 * Which hop a request is on, from its address: a plain request only to its target; a relayed one to its `via`
 * context first (as its sender put it), then to its target only as forwarded by that context (`relayedBy`). A relayed
 * request sent straight to its target is refused: it would skip the relaying context's part.
 */
function checkHop(
  type: string,
  def: RequestDefinition,
  target: Target | undefined,
  relayedBy: Target | undefined,
): Parsed<{ to: Target; forwarded: boolean }> {
  const wrong = (message: string): Parsed<never> => ({ ok: false, error: protocolError('wrong_target', message) });
  if (!def.via) {
    if (target !== def.target) return wrong(`"${type}" goes to ${def.target}, not ${target ?? 'nobody'}`);
    if (relayedBy !== undefined) return wrong(`"${type}" is not relayed, but came marked as relayed by ${relayedBy}`);
    return { ok: true, value: { to: def.target, forwarded: false } };
  }
  if (target === def.via && relayedBy === undefined) return { ok: true, value: { to: def.via, forwarded: false } };
  if (target === def.target && relayedBy === def.via) return { ok: true, value: { to: def.target, forwarded: true } };
  if (target === def.target)
    return wrong(`"${type}" goes to ${def.target} through ${def.via}: address it to ${def.via}, which forwards it`);
  return wrong(`"${type}" goes to ${def.via}, which forwards it to ${def.target}; not to ${target ?? 'nobody'}`);
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
