/**
 * One turn's way from the end of the user's speech to its first audio, from stamps on one clock: the engine's own
 * marks (end-of-speech, endpoint, transcript, first-token, first-speak) and the pipeline's (the first TTS frame of the
 * turn, its first PCM handed to the player). Each row gives every stamp in ms after the end of speech and the stage
 * between each stamp and the one before it; the stages add up to end of speech → first audio.
 */

/** A stamp of one turn on the pipeline's clock (ms). */
export interface Stamp {
  name: string;
  turnId: string;
  at: number;
}

/** The stamps of a turn's waterfall, in order, and the stage that ends at each. */
export const WATERFALL = [
  { stamp: 'endpoint', stage: 'endpointWait' },
  { stamp: 'transcript', stage: 'asrAfterEndpoint' },
  { stamp: 'first-token', stage: 'llmFirstToken' },
  { stamp: 'first-speak', stage: 'firstSentence' },
  { stamp: 'tts-first-frame', stage: 'ttsFirstFrame' },
  { stamp: 'audio-ready', stage: 'jitterHold' },
] as const;

export type StageName = (typeof WATERFALL)[number]['stage'];

export interface TurnRow {
  turnId: string;
  /** The end of speech on the pipeline's clock (ms). */
  endOfSpeechAt: number;
  /** Each stamp in ms after the end of speech; null when the turn never reached it. */
  after: Record<string, number | null>;
  /** Each stage's ms (from the stamp before it); null when either end is missing. */
  stages: Record<StageName, number | null>;
  /** End of speech → first PCM ready to play; null when the turn gave no audio. */
  endOfSpeechToAudio: number | null;
  complete: boolean;
}

const r1 = (x: number): number => Math.round(x * 10) / 10;

/**
 * A row per turn with an end of speech. A stamp that comes more than once in a turn (a transcript redone after a
 * merge) counts at its last before the turn's first token, else its first.
 */
export function turnRows(stamps: readonly Stamp[]): TurnRow[] {
  const byTurn = new Map<string, Stamp[]>();
  for (const s of stamps) byTurn.set(s.turnId, [...(byTurn.get(s.turnId) ?? []), s]);
  const rows: TurnRow[] = [];
  for (const [turnId, list] of byTurn) {
    const eos = list.find((s) => s.name === 'end-of-speech');
    if (!eos) continue;
    const firstToken = list.find((s) => s.name === 'first-token')?.at ?? Infinity;
    const at = (name: string): number | null => {
      const all = list.filter((s) => s.name === name);
      const before = all.filter((s) => s.at <= firstToken);
      const chosen = name === 'transcript' && before.length ? before.at(-1) : all[0];
      return chosen ? chosen.at : null;
    };
    const after: Record<string, number | null> = {};
    const stages = {} as Record<StageName, number | null>;
    let previous: number | null = eos.at;
    for (const { stamp, stage } of WATERFALL) {
      const t = at(stamp);
      after[stamp] = t === null ? null : r1(t - eos.at);
      stages[stage] = t === null || previous === null ? null : r1(t - previous);
      previous = t;
    }
    const audio = after['audio-ready'] ?? null;
    rows.push({
      turnId,
      endOfSpeechAt: r1(eos.at),
      after,
      stages,
      endOfSpeechToAudio: audio,
      complete: Object.values(after).every((v) => v !== null),
    });
  }
  return rows.sort((a, b) => a.endOfSpeechAt - b.endOfSpeechAt);
}

/** Nearest-rank percentile (p in 0..1) of the values; null for none. */
export function percentile(values: readonly number[], p: number): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

export interface Summary {
  turns: number;
  complete: number;
  /** p50/p90 over the complete rows: end of speech → first audio, and each stage. */
  p50: Record<string, number | null>;
  p90: Record<string, number | null>;
}

export function summarize(rows: readonly TurnRow[]): Summary {
  const done = rows.filter((r) => r.complete);
  const keys: Record<string, (r: TurnRow) => number> = {
    endOfSpeechToAudio: (r) => r.endOfSpeechToAudio!,
    ...Object.fromEntries(WATERFALL.map(({ stage }) => [stage, (r: TurnRow) => r.stages[stage]!])),
  };
  const at = (p: number) => Object.fromEntries(Object.entries(keys).map(([k, f]) => [k, percentile(done.map(f), p)]));
  return { turns: rows.length, complete: done.length, p50: at(0.5), p90: at(0.9) };
}
