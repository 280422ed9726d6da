/**
 * Relayed requests (issue #17): a request keeps one name from the UI to its handler. The UI addresses it to the
 * `via` context (the background), whose relay part adds the declared context; the router forwards the same type and
 * payload to the target (the offscreen document). Here the real background relays run against fakes, and the
 * forwarded hop is delivered to an offscreen router, as Chrome's runtime messaging would.
 */
import { describe, expect, it } from 'vitest';
import {
  createRequestRouter,
  DEFAULT_SETTINGS,
  definitionOf,
  parseMessage,
  relayedMessage,
  REQUESTS,
  requestMessage,
  sendRequest,
  type EventMessage,
  type Handlers,
  type OffscreenStatus,
  type ProtocolError,
  type RequestType,
  type Settings,
} from '../../../core/protocol';
import { createConversationRelay, engineContext } from '../../../entrypoints/background/conversation-relay';
import { createWeightsRelay } from '../../../entrypoints/background/weights-relay';
import { EVENT_SAMPLES, PAYLOAD_SAMPLES, RESULT_SAMPLES } from '../fuzz/samples';
import { FakeArea } from '../settings/fakes';

const RELAYED = (Object.keys(REQUESTS) as RequestType[]).filter((type) => definitionOf(type).via !== undefined);
const settings: Settings = { ...DEFAULT_SETTINGS, mirrorBaseUrl: 'https://mirror.example', asrModel: 'whisper-base' };

type Wire = { type: string; target: string; relayedBy?: string; payload: unknown; context?: unknown };

/** The background and offscreen boundaries, wired as in the extension; `wire` is every message either sends. */
function extension(options: { offscreenFails?: boolean } = {}) {
  const wire: Wire[] = [];
  const handled: { type: string; payload: unknown; context: unknown }[] = [];
  const errors: { where: string; error: ProtocolError }[] = [];
  let ensured = 0;

  const offscreenTable: Record<string, (payload: unknown, context?: unknown) => unknown> = {};
  for (const type of RELAYED) {
    offscreenTable[type] = (payload, context) => {
      handled.push({ type, payload, context });
      if (options.offscreenFails) throw new Error('the engine is busy');
      return RESULT_SAMPLES[type] ?? {};
    };
  }
  const offscreen = createRequestRouter('offscreen', offscreenTable as unknown as Handlers<'offscreen'>, (error) =>
    errors.push({ where: 'offscreen', error }),
  );
  // Runtime messaging as JSON: every context sees every message and answers only what is addressed to it.
  const send = async (message: unknown): Promise<unknown> => {
    const raw = JSON.parse(JSON.stringify(message)) as Wire;
    wire.push(raw);
    return (await offscreen.handle(raw)) ?? undefined;
  };
  const ensureOffscreen = async () => {
    ensured += 1;
  };

  const area = new FakeArea();
  const weights = createWeightsRelay({ area, settings: async () => settings, send, ensureOffscreen });
  const conversation = createConversationRelay(ensureOffscreen, { settings: async () => settings, send });
  const background = createRequestRouter(
    'background',
    { ...weights.handlers } as unknown as Handlers<'background'>,
    (error) => errors.push({ where: 'background', error }),
    {
      relays: { ...weights.relays, ...conversation.relays },
      forward: async (message) => {
        await ensureOffscreen();
        return send(message);
      },
    },
  );
  /** What the side panel does: one typed request, addressed by the protocol, answered by whoever handles it. */
  const fromUi = (message: unknown) => {
    const raw = JSON.parse(JSON.stringify(message)) as Wire;
    wire.push(raw);
    return Promise.all([background.handle(raw), offscreen.handle(raw)]).then(([a, b]) => a ?? b ?? undefined);
  };
  return { wire, handled, errors, area, weights, fromUi, background, ensured: () => ensured };
}

describe('relayed requests: one name from the UI to the handler', () => {
  it('declares every relayed request through the background, to another context', () => {
    expect(RELAYED.sort()).toEqual([
      'conversation/greet',
      'conversation/interrupt',
      'conversation/ptt',
      'conversation/text',
      'weights/cancel',
      'weights/delete',
      'weights/download',
    ]);
    for (const type of Object.keys(REQUESTS) as RequestType[]) {
      const def = definitionOf(type);
      if (def.via) expect(def.via, type).not.toBe(def.target);
      // Only a relaying context adds a context.
      if (def.context) expect(def.via, type).toBeDefined();
    }
    // The old relay vocabulary is gone: the UI and the engine say the same thing.
    for (const gone of ['chat/send', 'chat/interrupt', 'chat/ptt', 'models/download', 'models/cancel', 'models/delete'])
      expect(Object.keys(REQUESTS)).not.toContain(gone);
  });

  it.each(RELAYED)('%s: the UI addresses it to the background, which forwards the same type and payload', async (type) => {
    const ext = extension();
    for (const payload of PAYLOAD_SAMPLES[type] ?? [{}]) {
      ext.wire.length = 0;
      ext.handled.length = 0;
      const message = requestMessage(type, payload as never);
      expect(message.target).toBe('background');
      const reply = await ext.fromUi(message);
      expect(reply).toEqual({ ok: true, data: RESULT_SAMPLES[type] ?? {} });
      // Exactly two hops on the wire, under one name: UI → background, background → offscreen.
      expect(ext.wire.map((m) => [m.type, m.target, m.relayedBy])).toEqual([
        [type, 'background', undefined],
        [type, 'offscreen', 'background'],
      ]);
      const [first, forwarded] = ext.wire;
      expect(forwarded!.payload).toEqual(first!.payload);
      // The handler in the target got that payload, and the context the background declared for it.
      expect(ext.handled).toEqual([{ type, payload: first!.payload, context: forwarded!.context }]);
      const declared = definitionOf(type).context;
      if (declared) expect(declared.safeParse(forwarded!.context).success).toBe(true);
      else expect(forwarded).not.toHaveProperty('context');
    }
    expect(ext.ensured()).toBeGreaterThan(0);
    expect(ext.errors).toEqual([]);
  });

  it('adds the settings as the engine context (mirror, models) to conversation commands', async () => {
    const ext = extension();
    await ext.fromUi(requestMessage('conversation/text', { text: 'what is 12 times 12' }));
    expect(ext.handled[0]!.context).toEqual({
      baseUrl: 'https://mirror.example',
      models: { asr: 'whisper', device: 'auto', language: 'en' },
    });
    expect(ext.handled[0]!.context).toEqual(engineContext(settings));
  });

  it('keeps the background’s books on the way: downloads asked for stay pending until the snapshot says done', async () => {
    const ext = extension();
    await ext.fromUi(requestMessage('weights/download', { bundleIds: ['llm', 'tts'] }));
    expect(ext.area.data.weightsPending).toEqual(['llm', 'tts']);
    await ext.fromUi(requestMessage('weights/delete', { bundleId: 'tts' }));
    expect(ext.area.data.weightsPending).toEqual(['llm']);
    // A new offscreen document reports in: the background resumes under the same name, with its context.
    ext.wire.length = 0;
    await ext.weights.onEvent({ kind: 'event', type: 'event/offscreen-ready', payload: { status: offscreenStatus } });
    expect(ext.wire).toEqual([
      {
        kind: 'request',
        type: 'weights/download',
        target: 'offscreen',
        relayedBy: 'background',
        payload: { bundleIds: ['llm'] },
        context: { baseUrl: 'https://mirror.example' },
      },
    ]);
    await ext.fromUi(requestMessage('weights/cancel', {}));
    expect(ext.area.data.weightsPending).toEqual([]);
  });

  it('a download asked for while a snapshot is being booked stays pending, however slow the storage read', async () => {
    // The storage answers the snapshot's read of the list late, with the list as it was when asked (docs/weights.md,
    // "The pending list"): interleaved, the snapshot wrote that back over the download, and the engine restarted
    // later was never told to resume it.
    const ext = extension();
    const get = ext.area.get.bind(ext.area);
    let slowReads = 1;
    ext.area.get = async (key: string) => {
      const value = await get(key);
      if (key === 'weightsPending' && slowReads-- > 0) await new Promise((r) => setTimeout(r, 20));
      return value;
    };
    const [payload] = EVENT_SAMPLES['event/weights-snapshot']!;
    const booked = ext.weights.onEvent({ kind: 'event', type: 'event/weights-snapshot', payload } as EventMessage);
    await new Promise((r) => setTimeout(r, 1)); // the snapshot's read is on its way
    await ext.fromUi(requestMessage('weights/download', { bundleIds: ['tts'] }));
    await booked;
    expect(ext.area.data.weightsPending).toEqual(['tts']);
  });

  it('refuses a relayed request addressed to its target directly: the relay’s part would be skipped', async () => {
    const ext = extension();
    const direct = { kind: 'request', type: 'conversation/text', target: 'offscreen', payload: { text: 'hi' } };
    const reply = await ext.fromUi(direct);
    expect(reply).toMatchObject({ ok: false, error: { code: 'wrong_target' } });
    expect(reply && !reply.ok && reply.error.message).toMatch(/through background: address it to background/);
    // Even with a context the sender made up, and for a request without a context.
    const forged = { ...direct, context: engineContext(settings) };
    expect(await ext.fromUi(forged)).toMatchObject({ ok: false, error: { code: 'wrong_target' } });
    const cancel = { kind: 'request', type: 'weights/cancel', target: 'offscreen', payload: {} };
    expect(await ext.fromUi(cancel)).toMatchObject({ ok: false, error: { code: 'wrong_target' } });
    expect(ext.handled).toEqual([]);
    // Only the target accepts the forwarded hop, and only from the via context.
    const forwarded = relayedMessage('conversation/interrupt', {}, undefined);
    expect(ext.background.handle(forwarded)).toBeNull();
    expect(parseMessage({ ...forwarded, relayedBy: 'offscreen' })).toMatchObject({ ok: false, error: { code: 'wrong_target' } });
  });

  it('refuses a bad payload at the first hop, with a clear error, before the relay does anything', async () => {
    const ext = extension();
    const reply = await ext.fromUi({ kind: 'request', type: 'conversation/text', target: 'background', payload: { text: '' } });
    expect(reply).toMatchObject({ ok: false, error: { code: 'malformed' } });
    expect(reply && !reply.ok && reply.error.message).toMatch(/^Bad payload for "conversation\/text": text: /);
    const extra = {
      kind: 'request',
      type: 'weights/download',
      target: 'background',
      payload: { bundleIds: ['llm'], baseUrl: null },
    };
    expect(await ext.fromUi(extra)).toMatchObject({ ok: false, error: { code: 'malformed', message: /baseUrl|Unrecognized/ } });
    expect(ext.wire.filter((m) => m.target === 'offscreen')).toEqual([]);
    expect(ext.area.data.weightsPending).toBeUndefined();
    expect(ext.errors.map((e) => e.where)).toEqual(['background', 'background']);
  });

  it('refuses a context from the sender on the first hop, and a bad context on the forwarded hop', async () => {
    const ext = extension();
    const smuggled = { ...requestMessage('conversation/ptt', { down: true }), context: { baseUrl: 'https://evil.example' } };
    expect(await ext.fromUi(smuggled)).toMatchObject({
      ok: false,
      error: { code: 'malformed', message: '"conversation/ptt" gets its context from background, not from its sender' },
    });
    const bad = { ...relayedMessage('conversation/ptt', { down: true }, engineContext(settings)), context: { baseUrl: 7 } };
    expect(parseMessage(bad)).toMatchObject({
      ok: false,
      error: { code: 'malformed', message: /^Bad context for "conversation\/ptt"/ },
    });
    expect(ext.handled).toEqual([]);
  });

  it('passes the target’s failure back to the UI as it is, and a missing document as unavailable', async () => {
    const ext = extension({ offscreenFails: true });
    const reply = await sendRequest(ext.fromUi, 'conversation/interrupt', {});
    expect(reply).toMatchObject({ ok: false, error: { code: 'handler_failed', message: /the engine is busy/ } });

    const errors: ProtocolError[] = [];
    const deps = { settings: async () => settings, send: async () => undefined };
    const { relays } = createConversationRelay(async () => undefined, deps);
    const gone = createRequestRouter('background', {} as Handlers<'background'>, (e) => errors.push(e), {
      relays: relays as never,
      forward: () => Promise.reject(new Error('Could not establish connection. Receiving end does not exist.')),
    });
    expect(await gone.handle(requestMessage('conversation/text', { text: 'hello' }))).toMatchObject({
      ok: false,
      error: { code: 'unavailable', message: /Receiving end does not exist/ },
    });
    expect(errors).toHaveLength(1);
  });

  it('turns hands-free back off when listening could not start, so the orb does not claim to listen (issue #19)', async () => {
    const sent: unknown[] = [];
    let failed = 0;
    const deps = {
      settings: async () => settings,
      send: async (m: unknown) => {
        sent.push(m);
        const type = (m as { type?: string }).type;
        if (type === 'conversation/start') return { ok: false, error: { code: 'handler_failed', message: 'not downloaded' } };
        return type === 'conversation/stop' ? { ok: true, data: {} } : undefined;
      },
      handsFreeFailed: async () => {
        failed += 1;
      },
    };
    const relay = createConversationRelay(async () => undefined, deps);
    await relay.applyHandsFree(true);
    expect(failed).toBe(1);
    expect(sent.map((m) => (m as { type: string }).type)).toEqual(['conversation/start', 'event/notice']);
    await relay.applyHandsFree(false);
    expect(failed).toBe(1);
  });
});

const offscreenStatus: OffscreenStatus = {
  startedAt: 1,
  crossOriginIsolated: true,
  gpu: { available: false, vendor: '', architecture: '', description: '', isFallbackAdapter: false, shaderF16: false },
  mic: { capturing: false, sampleRate: null },
};
