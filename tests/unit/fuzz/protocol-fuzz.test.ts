/**
 * Fuzz of the runtime-messaging boundary (core/protocol): thousands of random and damaged messages, deterministic
 * (seeded). Every input must end as a typed answer: a parsed message that really matches its schema, or a
 * ProtocolError with a known code. Nothing may throw, reject, or reach a handler/listener unvalidated.
 */
import { describe, expect, it } from 'vitest';
import {
  createEventReceiver,
  createRequestRouter,
  DEFAULT_SETTINGS,
  definitionOf,
  describeError,
  EVENTS,
  isAddressedTo,
  parseMessage,
  parseReply,
  ProtocolErrorSchema,
  REQUESTS,
  sendRequest,
  SettingsPatchSchema,
  SettingsSchema,
  settingsFromStored,
  type EventMessage,
  type Handlers,
  type ProtocolError,
  type Relays,
  type Reply,
  type RequestType,
  type Target,
} from '../../../core/protocol';
import { arbitrary, hostileInputs, mutate, overJson, Rng } from './arbitrary';
import { CONTEXT_SAMPLES, eventSamples, PAYLOAD_SAMPLES, requestSamples, RESULT_SAMPLES } from './samples';

const N = 3000;
const CODES = new Set(['malformed', 'unknown_type', 'wrong_target', 'handler_failed', 'timeout', 'unavailable']);

function expectTypedError(error: unknown, maxLength = 1000): asserts error is ProtocolError {
  const parsed = ProtocolErrorSchema.safeParse(error);
  expect(parsed.success, `not a ProtocolError: ${describeError(error)}`).toBe(true);
  const e = error as ProtocolError;
  expect(CODES.has(e.code)).toBe(true);
  if (maxLength !== Infinity) expect(e.message.length).toBeGreaterThan(0);
  // A hostile input must not blow up the error itself (logs and UI show it).
  expect(e.message.length).toBeLessThanOrEqual(maxLength);
}

/** Inputs as both delivery paths see them: structured clone (BroadcastChannel, postMessage) and JSON (runtime). */
function* bothWays(rng: Rng, count: number, valid: readonly unknown[]): Generator<unknown> {
  for (const input of hostileInputs(rng, count, valid)) {
    yield input;
    yield overJson(input);
  }
}

describe('parseMessage under fuzz', () => {
  it('types every one of thousands of random/damaged messages: parsed and schema-true, or a typed error', () => {
    const rng = new Rng(0x5eed01);
    const valid = [...requestSamples().map((s) => s.message), ...eventSamples()];
    const tally = { ok: 0, malformed: 0, unknown_type: 0, wrong_target: 0 } as Record<string, number>;
    let i = 0;
    for (const input of bothWays(rng, N, valid)) {
      i++;
      let result: ReturnType<typeof parseMessage>;
      try {
        result = parseMessage(input);
      } catch (err) {
        throw new Error(`input #${i} threw: ${describeError(err)}`);
      }
      if (result.ok) {
        tally.ok = (tally.ok ?? 0) + 1;
        const msg = result.value;
        if (msg.kind === 'request') {
          const def = definitionOf(msg.type);
          expect(def.payload.safeParse(msg.payload).success).toBe(true);
          // Addressed to its target, or (relayed) to its via context first and to its target only as relayed.
          if (msg.relayedBy === undefined) expect(msg.target).toBe(def.via ?? def.target);
          else expect([msg.target, msg.relayedBy]).toEqual([def.target, def.via]);
          if (msg.context !== undefined) expect(msg.relayedBy && def.context?.safeParse(msg.context).success).toBe(true);
        } else {
          expect(EVENTS[msg.type].safeParse(msg.payload).success).toBe(true);
        }
        // Parsing what was parsed gives the same message (no half-validated shapes survive).
        const again = parseMessage(msg);
        expect(again.ok && again.value).toEqual(msg);
      } else {
        expectTypedError(result.error);
        tally[result.error.code] = (tally[result.error.code] ?? 0) + 1;
      }
    }
    // The fuzz reached every stage: accepted messages and each kind of rejection.
    expect(tally.ok).toBeGreaterThan(100);
    expect(tally.malformed).toBeGreaterThan(500);
    expect(tally.unknown_type).toBeGreaterThan(20);
    expect(tally.wrong_target).toBeGreaterThan(20);
  });

  it('never lets a polluted __proto__ key through or pollute Object.prototype', () => {
    const raw = JSON.parse('{"kind":"request","type":"__proto__","target":"background","payload":{}}');
    const r = parseMessage(raw);
    expect(r.ok).toBe(false);
    const pollute = JSON.parse(
      '{"kind":"request","type":"settings/set","target":"background","payload":{"patch":{"__proto__":{"handsFree":true}}}}',
    );
    const p = parseMessage(pollute);
    if (p.ok) expect(p.value.payload).not.toHaveProperty('patch.handsFree', true);
    expect(({} as Record<string, unknown>).handsFree).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

type Seen = { type: string; payload: unknown; context?: unknown; relayed?: boolean };

/**
 * A full handler table for one context, and its relay parts: each records what it got and sometimes fails in odd
 * ways (a relay part also makes the occasional bad context).
 */
function fuzzTable(me: Target, rng: Rng, seen: Seen[]) {
  const throwables: (() => unknown)[] = [
    () => new Error('boom'),
    () => 'a string',
    () => undefined,
    () => null,
    () => 42n,
    () => {
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      return circular;
    },
    () => {
      // Neither JSON.stringify nor String() can describe this one.
      const evil = Object.create(null) as Record<string, unknown>;
      evil.toJSON = () => {
        throw new Error('no json');
      };
      return evil;
    },
    () => Symbol('sym'),
  ];
  const table: Record<string, (payload: unknown, context?: unknown) => unknown> = {};
  const relays: Record<string, (payload: unknown) => unknown> = {};
  for (const type of Object.keys(REQUESTS) as RequestType[]) {
    const def = definitionOf(type);
    if (def.target === me) {
      table[type] = (payload, context) => {
        seen.push({ type, payload, context });
        const roll = rng.next();
        if (roll < 0.15) throw rng.pick(throwables)();
        if (roll < 0.25) return Promise.reject(rng.pick(throwables)());
        return RESULT_SAMPLES[type] ?? {};
      };
    }
    if (def.via === me) {
      relays[type] = (payload) => {
        seen.push({ type, payload, relayed: true });
        const roll = rng.next();
        if (roll < 0.1) throw rng.pick(throwables)();
        if (roll < 0.15) return Promise.reject(rng.pick(throwables)());
        if (roll < 0.2 && def.context) return { baseUrl: 42 };
        return CONTEXT_SAMPLES[type];
      };
    }
  }
  return { handlers: table as unknown as Handlers<typeof me>, relays: relays as unknown as Relays<typeof me> };
}

/**
 * The target as the relaying context meets it: a valid answer, junk, an error reply, a failed send or silence. Each
 * forwarded message is kept with the request its relay part was just given (inputs are handled one at a time).
 */
function fuzzForward(rng: Rng, seen: Seen[], forwarded: { message: Record<string, unknown>; received?: Seen }[]) {
  return (message: unknown): Promise<unknown> => {
    forwarded.push({ message: message as Record<string, unknown>, received: seen.at(-1) });
    const type = (message as { type: RequestType }).type;
    const roll = rng.next();
    if (roll < 0.5) return Promise.resolve({ ok: true, data: RESULT_SAMPLES[type] ?? {} });
    if (roll < 0.65) return Promise.resolve(arbitrary(rng, 2));
    if (roll < 0.8) return Promise.resolve({ ok: false, error: { code: 'handler_failed', message: 'the engine said no' } });
    if (roll < 0.95) return Promise.reject(new Error('Could not establish connection'));
    return new Promise(() => undefined);
  };
}

describe('createRequestRouter under fuzz', () => {
  for (const me of ['background', 'offscreen'] as const) {
    it(`${me}: answers every addressed input with a Reply, ignores the rest, hands handlers only valid payloads`, async () => {
      const rng = new Rng(me === 'background' ? 0xb0 : 0x0ff);
      const seen: Seen[] = [];
      const forwarded: { message: Record<string, unknown>; received?: Seen }[] = [];
      const logged: ProtocolError[] = [];
      const { handlers, relays } = fuzzTable(me, rng, seen);
      const relay = { relays, forward: fuzzForward(rng, seen, forwarded), timeoutMs: 5 };
      const router = createRequestRouter(me, handlers, (e) => logged.push(e), relay);
      const valid = requestSamples().map((s) => s.message);
      let answered = 0;
      let failures = 0;
      let i = 0;
      // Every valid sample once as is, then the damaged stream: each request type is then sure to reach its handler.
      for (const input of [...valid, ...bothWays(rng, N, valid)]) {
        i++;
        let reply: Promise<Reply<unknown>> | null;
        try {
          reply = router.handle(input);
        } catch (err) {
          throw new Error(`input #${i} threw synchronously: ${describeError(err)}`);
        }
        if (!isAddressedTo(input, me)) {
          expect(reply).toBeNull();
          continue;
        }
        expect(reply).not.toBeNull();
        let answer: Reply<unknown>;
        try {
          answer = await reply!;
        } catch (err) {
          throw new Error(`input #${i}: the reply rejected: ${describeError(err)}`);
        }
        answered++;
        // What sendResponse will deliver survives JSON, and the sender's parseReply types it.
        expect(() => JSON.stringify(answer)).not.toThrow();
        const type = (input as { type?: unknown }).type;
        const known = typeof type === 'string' && Object.prototype.hasOwnProperty.call(REQUESTS, type);
        if (!answer.ok) {
          failures++;
          expectTypedError(answer.error);
          // A relayed request also meets the target's trouble: no answer in time, no document, a junk reply.
          const relayed = known && definitionOf(type as RequestType).via === me;
          const codes = relayed ? [...CODES] : ['malformed', 'unknown_type', 'wrong_target', 'handler_failed'];
          expect(codes).toContain(answer.error.code);
        }
        if (known) {
          const back = parseReply(type as RequestType, overJson(answer));
          if (!back.ok) expectTypedError(back.error, Infinity);
        }
      }
      expect(answered).toBeGreaterThan(N / 3);
      expect(failures).toBeGreaterThan(N / 4);
      // Every rejected input was logged once, and handlers saw nothing their schema refuses.
      expect(logged.length).toBe(failures);
      expect(seen.length).toBeGreaterThan(50);
      for (const { type, payload, context, relayed } of seen) {
        const def = definitionOf(type as RequestType);
        expect(relayed ? def.via : def.target).toBe(me);
        expect(def.payload.safeParse(payload).success).toBe(true);
        if (!relayed && def.context) expect(def.context.safeParse(context).success).toBe(true);
        if (!relayed && !def.context) expect(context).toBeUndefined();
      }
      // What a relay forwards is what it received: same type, same payload, addressed on to the target.
      for (const { message, received } of forwarded) {
        const def = definitionOf(message.type as RequestType);
        expect(received).toMatchObject({ relayed: true, type: message.type, payload: message.payload });
        expect(def.via).toBe(me);
        expect(message).toMatchObject({ kind: 'request', target: def.target, relayedBy: me });
        expect(parseMessage(message)).toMatchObject({ ok: true, value: { type: message.type, payload: message.payload } });
      }
      if (me === 'background') expect(forwarded.length).toBeGreaterThan(20);
      // Every request type of this context reached its handler or relay part at least once (not stuck at the envelope).
      const reached = new Set(seen.map((s) => `${s.relayed ? 'relay ' : ''}${s.type}`));
      for (const type of Object.keys(PAYLOAD_SAMPLES) as RequestType[]) {
        const def = definitionOf(type);
        if (def.target === me) expect(reached.has(type), `${type} never reached`).toBe(true);
        if (def.via === me) expect(reached.has(`relay ${type}`), `${type} never relayed`).toBe(true);
      }
    });
  }
});

describe('createEventReceiver under fuzz', () => {
  it('passes only schema-valid events to the listener and never throws', () => {
    const rng = new Rng(0xe7e7);
    const got: EventMessage[] = [];
    const logged: ProtocolError[] = [];
    const receive = createEventReceiver(
      (e) => got.push(e),
      (e) => logged.push(e),
    );
    let i = 0;
    for (const input of bothWays(rng, N, eventSamples())) {
      i++;
      try {
        receive(input);
      } catch (err) {
        throw new Error(`input #${i} threw: ${describeError(err)}`);
      }
    }
    expect(got.length).toBeGreaterThan(100);
    expect(logged.length).toBeGreaterThan(500);
    for (const e of got) expect(EVENTS[e.type].safeParse(e.payload).success).toBe(true);
    for (const e of logged) expectTypedError(e);
  });
});

describe('parseReply and sendRequest under fuzz', () => {
  it('types every random/damaged reply for every request type', () => {
    const rng = new Rng(0x4e91);
    let accepted = 0;
    for (const type of Object.keys(REQUESTS) as RequestType[]) {
      const valid = [
        { ok: true, data: RESULT_SAMPLES[type] ?? {} },
        { ok: false, error: { code: 'timeout', message: 'slow' } },
      ];
      for (const input of bothWays(rng, 150, valid)) {
        let r: Reply<unknown>;
        try {
          r = parseReply(type, input);
        } catch (err) {
          throw new Error(`${type}: threw ${describeError(err)}`);
        }
        if (r.ok) {
          accepted++;
          expect(REQUESTS[type].result.safeParse(r.data).success).toBe(true);
        } else expectTypedError(r.error, Infinity); // a peer's own error message passes through as it is
      }
    }
    expect(accepted).toBeGreaterThan(100);
  });

  it('sendRequest always resolves to a typed Reply: junk answers, rejections, silence', async () => {
    const rng = new Rng(0x5e4d);
    const samples = requestSamples();
    for (let i = 0; i < 400; i++) {
      const { type, message } = rng.pick(samples);
      const mode = rng.int(0, 3);
      const send = (): Promise<unknown> =>
        mode === 0
          ? Promise.resolve(arbitrary(rng, 3))
          : mode === 1
            ? Promise.resolve(mutate(rng, { ok: true, data: RESULT_SAMPLES[type] ?? {} }))
            : mode === 2
              ? Promise.reject(rng.pick([new Error('Could not establish connection'), 'gone', undefined, 7]))
              : new Promise(() => undefined);
      const reply = await sendRequest(send, type, message.payload as never, 5);
      if (!reply.ok) {
        expectTypedError(reply.error);
        if (mode === 2) expect(reply.error.code).toBe('unavailable');
        if (mode === 3) expect(reply.error.code).toBe('timeout');
      } else expect(REQUESTS[type].result.safeParse(reply.data).success).toBe(true);
    }
  });
});

describe('settings under fuzz', () => {
  it('settingsFromStored always yields valid settings and keeps every valid stored field', () => {
    const rng = new Rng(0x5e7);
    const valid = [
      DEFAULT_SETTINGS,
      { ...DEFAULT_SETTINGS, theme: 'dark', handsFree: true, mirrorBaseUrl: 'https://m.example', asrModel: 'whisper-base' },
    ];
    for (const input of bothWays(rng, N, valid)) {
      const settings = settingsFromStored(input);
      expect(SettingsSchema.safeParse(settings).success).toBe(true);
      if (input && typeof input === 'object') {
        for (const [key, schema] of Object.entries(SettingsSchema.shape)) {
          const stored = schema.safeParse((input as Record<string, unknown>)[key]);
          if (stored.success) expect(settings[key as keyof typeof settings]).toEqual(stored.data);
        }
      }
    }
  });

  it('SettingsPatchSchema refuses unknown keys and wrong types without throwing', () => {
    const rng = new Rng(0x9a7c);
    let accepted = 0;
    for (const input of bothWays(rng, N, [{ handsFree: true }, { theme: 'light', captions: false }, {}])) {
      const r = SettingsPatchSchema.safeParse(input);
      if (!r.success) continue;
      accepted++;
      for (const key of Object.keys(r.data)) expect(Object.keys(SettingsSchema.shape)).toContain(key);
    }
    expect(accepted).toBeGreaterThan(50);
  });
});
