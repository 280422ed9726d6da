import { describe, expect, it } from 'vitest';
import {
  AudioChannelMessageSchema,
  createEventReceiver,
  createRequestRouter,
  DEFAULT_SETTINGS,
  eventMessage,
  parseMessage,
  parseReply,
  requestMessage,
  sendRequest,
  settingsFromStored,
  type EventMessage,
  type Handlers,
  type ProtocolError,
} from '../../../core/protocol';
import { MAX_VOICE_TRANSFER_BASE64 } from '../../../core/tts/voice-transfer';

const status = {
  offscreen: null,
  offscreenCreatedCount: 1,
};

function backgroundRouter(errors: ProtocolError[] = []) {
  return createRequestRouter(
    'background',
    {
      'settings/get': () => DEFAULT_SETTINGS,
      'settings/set': ({ patch }: { patch: Partial<typeof DEFAULT_SETTINGS> }) => ({ ...DEFAULT_SETTINGS, ...patch }),
      'status/get': () => status,
      'offscreen/ensure': () => status,
      'listening/toggle': () => ({ ...DEFAULT_SETTINGS, handsFree: true }),
      // The rest of the background's table is irrelevant here; a missing handler answers unknown_type.
    } as unknown as Handlers<'background'>,
    (e) => errors.push(e),
  );
}

describe('protocol messages', () => {
  it('round-trips every valid request through the router and validates the reply', async () => {
    const router = backgroundRouter();
    const msg = requestMessage('settings/set', { patch: { visionEnabled: true } });
    const raw = JSON.parse(JSON.stringify(msg)); // what runtime messaging really delivers
    const reply = await router.handle(raw);
    expect(reply).toEqual({ ok: true, data: { ...DEFAULT_SETTINGS, visionEnabled: true } });
    expect(parseReply('settings/set', reply)).toEqual(reply);
  });

  it('ignores traffic addressed to another context', () => {
    const router = backgroundRouter();
    expect(router.handle(requestMessage('offscreen/ping', {}))).toBeNull();
    expect(router.handle({ hello: 'world' })).toBeNull();
    expect(router.handle(null)).toBeNull();
  });

  const malformed: [string, unknown, string, RegExp][] = [
    [
      'unknown type',
      { kind: 'request', type: 'nope', target: 'background', payload: {} },
      'unknown_type',
      /Unknown request type "nope"/,
    ],
    [
      'wrong field type',
      { kind: 'request', type: 'settings/set', target: 'background', payload: { patch: { handsFree: 1 } } },
      'malformed',
      /patch\.handsFree/,
    ],
    [
      'extra field',
      { kind: 'request', type: 'settings/set', target: 'background', payload: { patch: { evil: true } } },
      'malformed',
      /evil|Unrecognized/,
    ],
    ['missing payload', { kind: 'request', type: 'settings/set', target: 'background' }, 'malformed', /payload/],
    ['bad kind', { kind: 'rpc', type: 'settings/get', target: 'background', payload: {} }, 'malformed', /kind/],
    ['huge type string', { kind: 'request', type: 'x'.repeat(500), target: 'background', payload: {} }, 'malformed', /type/],
    [
      'bad enum',
      { kind: 'request', type: 'settings/set', target: 'background', payload: { patch: { theme: 'neon' } } },
      'malformed',
      /theme/,
    ],
  ];
  it.each(malformed)('rejects %s with a clear typed error', async (_name, raw, code, message) => {
    const errors: ProtocolError[] = [];
    const reply = await backgroundRouter(errors).handle(raw);
    expect(reply).toMatchObject({ ok: false, error: { code } });
    expect(reply && !reply.ok && reply.error.message).toMatch(message);
    expect(errors).toHaveLength(1);
  });

  it('rejects a request sent to the wrong target', () => {
    const parsed = parseMessage({ kind: 'request', type: 'mic/probe', target: 'background', payload: { durationMs: 500 } });
    expect(parsed).toMatchObject({ ok: false, error: { code: 'wrong_target' } });
  });

  it('turns a throwing handler into a handler_failed reply instead of crashing', async () => {
    const errors: ProtocolError[] = [];
    const router = createRequestRouter(
      'offscreen',
      {
        'offscreen/ping': () => {
          throw new Error('boom');
        },
        'offscreen/status': () => Promise.reject(new Error('no gpu')),
        'mic/probe': () => ({ sampleRate: 16000, frames: 1, peakRms: 0, meanRms: 0 }),
      } as unknown as Handlers<'offscreen'>,
      (e) => errors.push(e),
    );
    expect(await router.handle(requestMessage('offscreen/ping', {}))).toMatchObject({
      ok: false,
      error: { code: 'handler_failed', message: expect.stringContaining('boom') },
    });
    expect(await router.handle(requestMessage('offscreen/status', {}))).toMatchObject({
      ok: false,
      error: { code: 'handler_failed' },
    });
    expect(errors).toHaveLength(2);
  });

  it('validates replies on the sender side', () => {
    expect(parseReply('offscreen/ping', undefined)).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    expect(parseReply('offscreen/ping', { ok: true, data: { startedAt: 'yesterday' } })).toMatchObject({
      ok: false,
      error: { code: 'malformed' },
    });
    expect(parseReply('offscreen/ping', 42)).toMatchObject({ ok: false, error: { code: 'malformed' } });
    expect(parseReply('offscreen/ping', { ok: true, data: { startedAt: 5 } })).toEqual({ ok: true, data: { startedAt: 5 } });
  });

  it('sendRequest times out on a silent receiver and reports a failed send', async () => {
    const never = () => new Promise<unknown>(() => undefined);
    expect(await sendRequest(never, 'offscreen/ping', {}, 20)).toMatchObject({ ok: false, error: { code: 'timeout' } });
    const failing = () => Promise.reject(new Error('Receiving end does not exist.'));
    expect(await sendRequest(failing, 'offscreen/ping', {})).toMatchObject({ ok: false, error: { code: 'unavailable' } });
  });

  it('delivers only valid events to listeners', () => {
    const got: EventMessage[] = [];
    const errors: ProtocolError[] = [];
    const receive = createEventReceiver(
      (e) => got.push(e),
      (e) => errors.push(e),
    );
    receive(eventMessage('event/settings', { settings: DEFAULT_SETTINGS }));
    receive({ kind: 'event', type: 'event/settings', payload: { settings: { handsFree: 'nope' } } });
    receive({ kind: 'event', type: 'event/unknown', payload: {} });
    receive(requestMessage('settings/get', {}));
    expect(got).toHaveLength(1);
    expect(errors.map((e) => e.code)).toEqual(['malformed', 'unknown_type']);
  });
});

describe('settings', () => {
  it('keeps every valid stored field and replaces only invalid ones', () => {
    const stored = { handsFree: true, theme: 'neon', captions: false, unknownFutureField: 3 };
    expect(settingsFromStored(stored)).toEqual({ ...DEFAULT_SETTINGS, handsFree: true, captions: false });
    expect(settingsFromStored(undefined)).toEqual(DEFAULT_SETTINGS);
    expect(settingsFromStored('garbage')).toEqual(DEFAULT_SETTINGS);
  });
});

describe('playback messages from the side panel', () => {
  it('an end may say how much of the turn played; a bad amount is a clear refusal naming the field', async () => {
    const { PlaybackMessageSchema } = await import('../../../core/protocol');
    const ended = { type: 'ended', turnId: 't1', interrupted: true };
    expect(PlaybackMessageSchema.parse(ended)).toEqual(ended);
    expect(PlaybackMessageSchema.parse({ ...ended, playedMs: 1234.5 })).toEqual({ ...ended, playedMs: 1234.5 });
    for (const playedMs of [-1, Number.NaN, Number.POSITIVE_INFINITY, '900', 4e6]) {
      const r = PlaybackMessageSchema.safeParse({ ...ended, playedMs });
      expect(r.success, `playedMs ${String(playedMs)}`).toBe(false);
      expect(r.error?.issues[0]?.path).toEqual(['playedMs']);
    }
  });
});

describe('offscreen status: the LLM decode path', () => {
  it('carries the path and the plain reason; an unknown path or an oversize reason is refused naming the field', async () => {
    const { OffscreenStatusSchema } = await import('../../../core/protocol');
    const base = {
      startedAt: 1,
      crossOriginIsolated: true,
      gpu: { available: true, vendor: 'v', architecture: 'a', description: '', isFallbackAdapter: false, shaderF16: true },
      mic: { capturing: false, sampleRate: null },
    };
    expect(OffscreenStatusSchema.parse(base)).toEqual(base); // before the LLM has loaded
    const plain = { ...base, llm: { decode: 'plain', plainReason: 'graph not recognised: no GroupQueryAttention' } };
    expect(OffscreenStatusSchema.parse(plain)).toEqual(plain);
    expect(OffscreenStatusSchema.parse({ ...base, llm: { decode: 'captured' } }).llm).toEqual({ decode: 'captured' });
    for (const llm of [{ decode: 'turbo' }, { decode: 'plain', plainReason: 'x'.repeat(241) }, { plainReason: 'why' }]) {
      const r = OffscreenStatusSchema.safeParse({ ...base, llm });
      expect(r.success, JSON.stringify(llm).slice(0, 40)).toBe(false);
      expect(r.error?.issues[0]?.path[0]).toBe('llm');
    }
    const tts = { backend: 'wasm', threads: 4, flowCache: 'chunk' };
    expect(OffscreenStatusSchema.parse({ ...base, tts }).tts).toEqual(tts);
    const bad = OffscreenStatusSchema.safeParse({ ...base, tts: { ...tts, flowCache: 'huge' } });
    expect(bad.error?.issues[0]?.path).toEqual(['tts', 'flowCache']);
  });

  it("carries the speech models' runtime, why not WebGPU and what is loaded; a value it does not know is refused", async () => {
    const { OffscreenStatusSchema } = await import('../../../core/protocol');
    const { speechLine } = await import('../../../components/models/ComputeSettings');
    const base = {
      startedAt: 1,
      crossOriginIsolated: true,
      gpu: { available: true, vendor: 'v', architecture: 'a', description: '', isFallbackAdapter: false, shaderF16: true },
      mic: { capturing: false, sampleRate: null },
    };
    const speech = { runtime: 'wasm', reason: 'WebGPU did not answer within 15 s', loaded: ['asr', 'llm'] };
    const parsed = OffscreenStatusSchema.parse({ ...base, speech }).speech!;
    expect(parsed).toEqual(speech);
    expect(speechLine(parsed)).toBe(
      'Speech recognition and the language model run on the CPU (WebGPU did not answer within 15 s).',
    );
    expect(speechLine({ runtime: 'starting', loaded: [] })).toMatch(/starting/);
    for (const bad of [
      { ...speech, runtime: 'cuda' },
      { ...speech, loaded: ['vision'] },
      { ...speech, reason: 'x'.repeat(201) },
    ]) {
      const r = OffscreenStatusSchema.safeParse({ ...base, speech: bad });
      expect(r.success, JSON.stringify(bad).slice(0, 40)).toBe(false);
      expect(r.error?.issues[0]?.path[0]).toBe('speech');
    }
  });
});

describe('audio channel messages', () => {
  it('accepts Float32Array chunks and rejects other sample containers', () => {
    const chunk = { kind: 'chunk', turnId: 't1', seq: 0, sampleRate: 24000, samples: new Float32Array(1920), final: false };
    expect(AudioChannelMessageSchema.safeParse(chunk).success).toBe(true);
    expect(AudioChannelMessageSchema.safeParse({ ...chunk, samples: Array.from({ length: 4 }, () => 0) }).success).toBe(false);
    expect(AudioChannelMessageSchema.safeParse({ ...chunk, sampleRate: 5 }).success).toBe(false);
    expect(AudioChannelMessageSchema.safeParse({ kind: 'stop', turnId: 't1' }).success).toBe(true);
    expect(AudioChannelMessageSchema.safeParse({ kind: 'end', turnId: 't1' }).success).toBe(true);
    const bad = AudioChannelMessageSchema.safeParse({ ...chunk, samples: Float32Array.of(0, NaN, 0.1) });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toMatch(/NaN or infinite/);
    expect(AudioChannelMessageSchema.safeParse({ ...chunk, samples: Float32Array.of(Infinity) }).success).toBe(false);
  });
});

describe('voice file requests', () => {
  const voiceRequest = (type: string, payload: unknown) => ({ kind: 'request', type, target: 'offscreen', payload });
  const fileB64 = Buffer.from('STVOICE\u0001\u0000 and then a header and tensors').toString('base64');

  it('accepts an export by id and an import of base64 bytes, with or without a file name', () => {
    expect(parseMessage(voiceRequest('voices/export', { id: 'clone-abc-123' }))).toMatchObject({ ok: true });
    expect(parseMessage(voiceRequest('voices/import', { bytesBase64: fileB64 }))).toMatchObject({ ok: true });
    expect(parseMessage(voiceRequest('voices/import', { fileName: 'My-voice.stvoice', bytesBase64: fileB64 }))).toMatchObject({
      ok: true,
    });
  });

  const invalid: [string, string, unknown, RegExp][] = [
    ['export without an id', 'voices/export', {}, /id/],
    ['export with an extra field', 'voices/export', { id: 'clone-a-b', path: '/etc' }, /Unrecognized|path/],
    ['import without bytes', 'voices/import', { fileName: 'x.stvoice' }, /bytesBase64/],
    ['import of bytes as an array', 'voices/import', { bytesBase64: [83, 84] }, /bytesBase64/],
    [
      'import of text that is not base64',
      'voices/import',
      { bytesBase64: 'this is certainly not base64!!' },
      /must be sent as base64/,
    ],
    ['import of a tiny file', 'voices/import', { bytesBase64: 'U1RWT0lDRQ==' }, /too small/],
    ['import with an extra field', 'voices/import', { bytesBase64: fileB64, id: 'clone-a-b' }, /Unrecognized|id/],
    ['import with a huge file name', 'voices/import', { bytesBase64: fileB64, fileName: 'x'.repeat(300) }, /fileName/],
  ];
  it.each(invalid)('rejects %s', (_name, type, payload, message) => {
    const parsed = parseMessage(voiceRequest(type, payload));
    expect(parsed).toMatchObject({ ok: false, error: { code: 'malformed' } });
    expect(!parsed.ok && parsed.error.message).toMatch(message);
  });

  it('rejects an oversize file with a sentence that names the limit (it could not cross runtime messaging)', () => {
    const huge = 'A'.repeat(MAX_VOICE_TRANSFER_BASE64 + 4);
    const parsed = parseMessage(voiceRequest('voices/import', { bytesBase64: huge }));
    expect(parsed).toMatchObject({ ok: false, error: { code: 'malformed' } });
    expect(!parsed.ok && parsed.error.message).toMatch(/too large \(Sidetalk moves voice files of up to 24 MB\)/);
    // Chrome refuses a runtime message over 64 MiB: the cap plus the JSON envelope stays below it.
    expect(MAX_VOICE_TRANSFER_BASE64 + 1024).toBeLessThan(64 * 1024 * 1024);
    // A 30 s clone (≈ 18.4 MB, pocket-tts.md §5) fits.
    expect(Math.ceil(18.4e6 / 3) * 4).toBeLessThan(MAX_VOICE_TRANSFER_BASE64);
  });

  it('validates the replies: export gives a file name and base64, import a listed clone', () => {
    expect(parseReply('voices/export', { ok: true, data: { fileName: 'Me.stvoice', bytesBase64: fileB64 } })).toMatchObject({
      ok: true,
    });
    expect(parseReply('voices/export', { ok: true, data: { fileName: 'Me.stvoice', bytesBase64: [1, 2] } })).toMatchObject({
      ok: false,
      error: { code: 'malformed' },
    });
    const clone = {
      id: 'clone-a-b',
      name: 'Me',
      createdAt: 1,
      synthetic: true,
      usable: true,
      consentStatement: 'This is my voice.',
    };
    expect(parseReply('voices/import', { ok: true, data: clone })).toMatchObject({ ok: true, data: clone });
    expect(parseReply('voices/import', { ok: true, data: { ...clone, synthetic: false } })).toMatchObject({ ok: false });
  });
});
