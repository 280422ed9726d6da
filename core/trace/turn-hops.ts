/**
 * One turn's waterfall from the exported trace (docs/benchmarks.md, "What the user hears"). The critical path runs
 * end of speech → endpoint → ASR done → first token → first sentence → TTS call → TTS first frame → chunk received
 * in the panel → chunk queued to the player → first audible level. Each hop is the time from the latest earlier
 * point to its own point (zero when that work was already done, e.g. a transcript ready before the endpoint thanks
 * to speculation), so the hops add up to end of speech → first audible.
 */
import type { TraceStamp } from '../protocol/trace';

export const CHAIN = [
  'end-of-speech',
  'endpoint',
  'transcript',
  'first-token',
  'first-speak',
  'tts-call',
  'tts-first-frame',
  'panel-chunk',
  'panel-queued',
  'panel-audible',
] as const;
export type ChainPoint = (typeof CHAIN)[number];

/** Hop names: the point each hop ends at. */
export const HOP_LABELS: Record<Exclude<ChainPoint, 'end-of-speech'>, string> = {
  endpoint: 'endpoint wait (end of speech → endpoint)',
  transcript: 'ASR after the endpoint',
  'first-token': 'LLM to first token',
  'first-speak': 'first sentence',
  'tts-call': 'engine → TTS call',
  'tts-first-frame': 'TTS call → first frame (offscreen)',
  'panel-chunk': 'hop offscreen → panel (chunk received)',
  'panel-queued': 'panel: chunk → player (stream start, streamAudio)',
  'panel-audible': 'player: queued → first audible level',
};

export interface TurnWaterfall {
  turnId: string;
  /** Times of the chain points present (first sentence where per sentence), on the offscreen clock. */
  points: Partial<Record<ChainPoint, number>>;
  hops: Partial<Record<Exclude<ChainPoint, 'end-of-speech'>, number>>;
  /** first sentence handed to TTS → first audible level in the panel. */
  speakToAudible?: number;
  /** first sentence → the engine's `first-audio` (the panel's started event after its hop back). */
  speakToFirstAudio?: number;
  endOfSpeechToAudible?: number;
  endpointToAudible?: number;
  /** The player's started callback after the chunk was queued, and its hop back to the engine. */
  queuedToStarted?: number;
  startedToEngine?: number;
  /** Model compute on the critical path: ASR and LLM hops as the engine saw them, the TTS worker's own time. */
  modelMs?: number;
  /** TTS worker's own time from taking the request to posting its first frame (measured inside the worker). */
  ttsWorkerMs?: number;
  /** The speak request reaching the voice worker, and its first frame reaching the offscreen document. */
  ttsRequestHopMs?: number;
  ttsFrameHopMs?: number;
  /** Per sentence: TTS first frame (offscreen) → chunk received (panel). */
  chunkHops: number[];
  /** Did the first chunk have to start the player's stream (1) or was it open (0)? */
  streamStarted?: number;
}

const firstOf = (stamps: readonly TraceStamp[], name: string, index?: number) =>
  stamps.find((s) => s.name === name && (index === undefined || s.index === undefined || s.index === index));

export function turnWaterfall(turnId: string, all: readonly TraceStamp[]): TurnWaterfall {
  const stamps = all.filter((s) => s.turnId === turnId);
  const points: TurnWaterfall['points'] = {};
  for (const name of CHAIN) {
    const s = firstOf(stamps, name, name.startsWith('tts-') || name.startsWith('panel-') ? 0 : undefined);
    if (s) points[name] = s.at;
  }
  const hops: TurnWaterfall['hops'] = {};
  let latest: number | undefined;
  for (const name of CHAIN) {
    const at = points[name];
    if (at === undefined) continue;
    if (latest !== undefined && name !== 'end-of-speech') hops[name] = Math.max(0, at - latest);
    latest = latest === undefined ? at : Math.max(latest, at);
  }
  const w: TurnWaterfall = { turnId, points, hops, chunkHops: [] };
  const span = (a?: number, b?: number) => (a !== undefined && b !== undefined ? b - a : undefined);
  const set = <K extends keyof TurnWaterfall>(key: K, value: TurnWaterfall[K] | undefined) => {
    if (value !== undefined) w[key] = value;
  };
  const firstAudio = firstOf(stamps, 'first-audio')?.at;
  const started = firstOf(stamps, 'panel-started')?.at;
  set('speakToAudible', span(points['first-speak'], points['panel-audible']));
  set('speakToFirstAudio', span(points['first-speak'], firstAudio));
  set('endOfSpeechToAudible', span(points['end-of-speech'], points['panel-audible']));
  set('endpointToAudible', span(points.endpoint, points['panel-audible']));
  set('queuedToStarted', span(points['panel-queued'], started));
  set('startedToEngine', span(started, firstAudio));
  const frame = firstOf(stamps, 'tts-first-frame', 0);
  set('ttsWorkerMs', frame?.info?.workerMs);
  set('ttsRequestHopMs', frame?.info?.requestHopMs);
  set('ttsFrameHopMs', frame?.info?.frameHopMs);
  set('streamStarted', firstOf(stamps, 'panel-queued', 0)?.info?.streamStarted);
  if (hops.transcript !== undefined || hops['first-token'] !== undefined || w.ttsWorkerMs !== undefined)
    w.modelMs = (hops.transcript ?? 0) + (hops['first-token'] ?? 0) + Math.min(w.ttsWorkerMs ?? 0, hops['tts-first-frame'] ?? 0);
  for (const sent of stamps.filter((s) => s.name === 'tts-first-frame')) {
    const got = stamps.find((s) => s.name === 'panel-chunk' && s.index === sent.index);
    if (got) w.chunkHops.push(got.at - sent.at);
  }
  return w;
}

/** Every turn of the trace that reached the panel's player, in order. */
export function waterfalls(stamps: readonly TraceStamp[]): TurnWaterfall[] {
  const ids = [...new Set(stamps.filter((s) => s.name === 'panel-chunk').map((s) => s.turnId))];
  return ids.map((id) => turnWaterfall(id, stamps));
}
