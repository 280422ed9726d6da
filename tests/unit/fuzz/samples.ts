/**
 * One or more valid examples of every message the protocol knows, the seeds the mutators damage. Request types a
 * newer build adds without a sample here still get fuzzed with `{}` and junk (see `requestSamples`).
 */
import { DEFAULT_SETTINGS, definitionOf, EVENTS, REQUESTS, type EventType, type RequestType } from '../../../core/protocol';

const snapshot = {
  version: 1,
  baseUrl: 'https://huggingface.co',
  updatedAt: 1_700_000_000_000,
  bundles: [
    {
      id: 'llm',
      status: 'partial',
      bytesStored: 10,
      totalBytes: 20,
      files: [{ path: 'onnx/model_q4.onnx', status: 'partial', bytes: 10, size: 20 }],
    },
  ],
  active: { bundleId: 'llm', path: 'onnx/model_q4.onnx' },
  lastError: null,
};

const offscreenStatus = {
  startedAt: 1,
  crossOriginIsolated: true,
  gpu: {
    available: true,
    vendor: 'google',
    architecture: 'swiftshader',
    description: '',
    isFallbackAdapter: true,
    shaderF16: false,
  },
  mic: { capturing: false, sampleRate: null },
  llm: { decode: 'plain', plainReason: 'no graph capture on WASM' },
};

export const PAYLOAD_SAMPLES: Partial<Record<RequestType, unknown[]>> = {
  'settings/get': [{}],
  'settings/set': [
    { patch: { handsFree: true } },
    { patch: { mirrorBaseUrl: 'https://mirror.example', theme: 'dark' } },
    { patch: {} },
  ],
  'status/get': [{}],
  'offscreen/ensure': [{}],
  'listening/toggle': [{}],
  'weights/state': [{}],
  'weights/download': [{ bundleIds: ['llm'] }, { bundleIds: ['llm', 'asr-moonshine'] }],
  'weights/cancel': [{}],
  'weights/delete': [{ bundleId: 'llm' }],
  'weights/snapshot': [{ baseUrl: null }],
  'conversation/start': [{ baseUrl: null }, { baseUrl: 'http://127.0.0.1:9', characterId: 'builtin:default' }],
  'conversation/stop': [{}],
  'conversation/text': [{ text: 'what is 12 times 12' }, { text: 'hi', characterId: 'x' }],
  'conversation/interrupt': [{}],
  'conversation/ptt': [{ down: true }, { down: false }],
  'conversation/marks': [{}],
  'debug/turn-trace': [{}],
  'debug/gate-frames': [{}],
  'tools/run': [
    { call: { name: 'calculate', arguments: { expression: '12*12' } } },
    { call: { name: 'get_weather', arguments: { location: 'Berlin' } } },
  ],
  'page/read': [{}],
  'page/show-section': [{ url: 'https://example.org/a', heading: 'Warranty', snippet: 'Coverage expires' }],
  'offscreen/ping': [{}],
  'offscreen/status': [{}],
  'mic/probe': [{ durationMs: 500 }],
  'tunables/get': [{}],
  'tunables/set': [
    { path: 'engine.vadOn', value: 0.6 },
    { path: 'tts.temperature', value: 0.3 },
  ],
  'tunables/reset': [{}],
  'debug/tunables-live': [{ context: 'offscreen' }, { context: 'tts-worker' }],
};

const engine = { baseUrl: null, models: { asr: 'moonshine', device: 'auto', language: 'en' } };

/** What the relaying context adds to each relayed request that declares a context (see REQUESTS' `context`). */
export const CONTEXT_SAMPLES: Partial<Record<RequestType, unknown>> = {
  'weights/download': { baseUrl: 'http://127.0.0.1:9' },
  'weights/delete': { baseUrl: null },
  'conversation/text': engine,
  'conversation/greet': engine,
  'conversation/ptt': {
    ...engine,
    baseUrl: 'https://mirror.example',
    models: { asr: 'whisper', device: 'wasm', language: 'de' },
  },
};

/**
 * Valid messages on the wire: every request as its sender addresses it (a relayed one to its `via` context), and
 * every relayed request again as forwarded to its target, marked `relayedBy` and carrying its context.
 */
export function requestSamples(): { type: RequestType; message: Record<string, unknown> }[] {
  const out: { type: RequestType; message: Record<string, unknown> }[] = [];
  for (const type of Object.keys(REQUESTS) as RequestType[]) {
    const def = definitionOf(type);
    for (const payload of PAYLOAD_SAMPLES[type] ?? [{}]) {
      out.push({ type, message: { kind: 'request', type, target: def.via ?? def.target, payload } });
      if (!def.via) continue;
      const context = def.context ? { context: CONTEXT_SAMPLES[type] } : {};
      out.push({ type, message: { kind: 'request', type, target: def.target, relayedBy: def.via, payload, ...context } });
    }
  }
  return out;
}

export const EVENT_SAMPLES: Partial<Record<EventType, unknown[]>> = {
  'event/status': [
    { status: { offscreen: null, offscreenCreatedCount: 1 } },
    { status: { offscreen: offscreenStatus, offscreenCreatedCount: 2 } },
  ],
  'event/settings': [{ settings: DEFAULT_SETTINGS }],
  'event/offscreen-ready': [{ status: offscreenStatus }],
  'event/weights-progress': [
    { progress: { bundleId: 'llm', path: 'a', fileBytes: 1, fileTotal: 2, bytes: 1, total: 2, speedBps: 3, etaSeconds: null } },
  ],
  'event/weights-snapshot': [{ snapshot }],
  'event/engine-state': [{ state: 'thinking' }, { state: 'idle', detail: 'Loading the models…' }],
  'event/caption': [
    { role: 'assistant', text: '144', final: true, turnId: 't3' },
    { role: 'user', text: 'Tell me about Lisbon. And its trams.', final: true, turnId: 't5', replaces: 't4' },
  ],
  'event/card': [{ card: null }, { card: { kind: 'calculation', expression: '12*12', result: '144' } }],
  'event/notice': [{ level: 'error', message: 'The language model failed' }],
  'event/tunables': [
    { version: 1, overrides: {} },
    { version: 1_700_000_000_000, overrides: { 'engine.vadOn': 0.6, 'lipsync.jawAttack': 0.5 } },
  ],
};

export function eventSamples(): Record<string, unknown>[] {
  return (Object.keys(EVENTS) as EventType[]).flatMap((type) =>
    (EVENT_SAMPLES[type] ?? [{}]).map((payload) => ({ kind: 'event', type, payload })),
  );
}

/** Valid results, for reply fuzzing (types without one get `{}`). */
export const RESULT_SAMPLES: Partial<Record<RequestType, unknown>> = {
  'settings/get': DEFAULT_SETTINGS,
  'settings/set': DEFAULT_SETTINGS,
  'status/get': { offscreen: offscreenStatus, offscreenCreatedCount: 1 },
  'offscreen/ensure': { offscreen: null, offscreenCreatedCount: 0 },
  'listening/toggle': DEFAULT_SETTINGS,
  'weights/state': snapshot,
  'weights/download': { queued: ['llm'] },
  'weights/delete': { freedBytes: 0 },
  'weights/snapshot': snapshot,
  'conversation/marks': [{ name: 'done', at: 1.5, wallAt: 1_796_000_000_000, turnId: 't2' }],
  'debug/gate-frames': { columns: ['at', 'rms'], rows: [[1.5, 0.01]], clockToWallMs: 1_796_000_000_000 },
  'debug/turn-trace': {
    clocks: [{ panelId: 'p1', offsetMs: -47_000, rttMs: 2 }],
    stamps: [{ name: 'panel-chunk', turnId: 't2', at: 1.5, context: 'panel', index: 0, info: { streamStarted: 1 } }],
  },
  'tools/run': { ok: true, tool: 'calculate', speech: '144', card: { kind: 'calculation' } },
  'page/read': { ok: false, message: "I can't read this page." },
  'page/show-section': { ok: true },
  'offscreen/ping': { startedAt: 1 },
  'offscreen/status': offscreenStatus,
  'mic/probe': { sampleRate: 16000, frames: 10, peakRms: 0.5, meanRms: 0.1 },
  'tunables/get': { version: 2, overrides: { 'engine.vadOn': 0.6 }, values: { engine: { vadOn: 0.6 } } },
  'tunables/set': { version: 2, overrides: { 'engine.vadOn': 0.6 } },
  'tunables/reset': { version: 3, overrides: {} },
  'debug/tunables-live': { engine: { vadOn: 0.6 } },
};
