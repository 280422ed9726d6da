/**
 * One or more valid examples of every message the protocol knows, the seeds the mutators damage. Request types a
 * newer build adds without a sample here still get fuzzed with `{}` and junk (see `requestSamples`).
 */
import { DEFAULT_SETTINGS, EVENTS, REQUESTS, type EventType, type RequestType } from '../../../core/protocol';

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
  'models/download': [{ bundleIds: ['llm', 'asr-moonshine'] }],
  'models/cancel': [{}],
  'models/delete': [{ bundleId: 'llm' }],
  'models/state': [{}],
  'weights/download': [
    { bundleIds: ['llm'], baseUrl: null },
    { bundleIds: ['tts'], baseUrl: 'http://127.0.0.1:9' },
  ],
  'weights/cancel': [{}],
  'weights/delete': [{ bundleId: 'llm', baseUrl: null }],
  'weights/snapshot': [{ baseUrl: null }],
  'conversation/start': [{ baseUrl: null }, { baseUrl: 'http://127.0.0.1:9', characterId: 'builtin:default' }],
  'conversation/stop': [{}],
  'conversation/text': [
    { text: 'what is 12 times 12', baseUrl: null },
    { text: 'hi', baseUrl: null, characterId: 'x' },
  ],
  'conversation/interrupt': [{}],
  'conversation/marks': [{}],
  'chat/send': [{ text: 'what time is it' }],
  'chat/interrupt': [{}],
  'tools/run': [
    { call: { name: 'calculate', arguments: { expression: '12*12' } } },
    { call: { name: 'get_weather', arguments: { location: 'Berlin' } } },
  ],
  'page/read': [{}],
  'offscreen/ping': [{}],
  'offscreen/status': [{}],
  'mic/probe': [{ durationMs: 500 }],
};

export function requestSamples(): { type: RequestType; message: Record<string, unknown> }[] {
  const out: { type: RequestType; message: Record<string, unknown> }[] = [];
  for (const type of Object.keys(REQUESTS) as RequestType[]) {
    for (const payload of PAYLOAD_SAMPLES[type] ?? [{}]) {
      out.push({ type, message: { kind: 'request', type, target: REQUESTS[type].target, payload } });
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
  'event/caption': [{ role: 'assistant', text: '144', final: true, turnId: 3 }],
  'event/card': [{ card: null }, { card: { kind: 'calculation', expression: '12*12', result: '144' } }],
  'event/notice': [{ level: 'error', message: 'The language model failed' }],
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
  'models/download': { queued: ['llm'] },
  'models/delete': { freedBytes: 10 },
  'models/state': snapshot,
  'weights/download': { queued: ['llm'] },
  'weights/delete': { freedBytes: 0 },
  'weights/snapshot': snapshot,
  'conversation/marks': [{ name: 'reply-done', at: 1.5, turnId: 2 }],
  'tools/run': { ok: true, tool: 'calculate', speech: '144', card: { kind: 'calculation' } },
  'page/read': { ok: false, message: "I can't read this page." },
  'offscreen/ping': { startedAt: 1 },
  'offscreen/status': offscreenStatus,
  'mic/probe': { sampleRate: 16000, frames: 10, peakRms: 0.5, meanRms: 0.1 },
};
