/**
 * The debug panel's waterfall rows: for each traced turn, its hops along the critical path as bars placed on a
 * common scale (core/trace/turn-hops.ts computes the hops; docs/benchmarks.md, "What the user hears").
 */
import { CHAIN, HOP_LABELS, type TurnWaterfall } from '../../core/trace/turn-hops';

export interface WaterfallBar {
  hop: keyof typeof HOP_LABELS;
  label: string;
  /** Start and length in per cent of the widest turn. */
  left: number;
  width: number;
  ms: number;
}

export interface WaterfallRow {
  turnId: string;
  /** End of speech (or the first point traced) → first audible, ms; null when the turn was not heard. */
  totalMs: number | null;
  bars: WaterfallBar[];
}

/** The newest `limit` turns, each scaled to the longest of them so the rows compare at a glance. */
export function waterfallRows(turns: readonly TurnWaterfall[], limit = 6): WaterfallRow[] {
  const shown = turns.slice(-limit);
  const spans = shown.map((t) => {
    const times = CHAIN.map((p) => t.points[p]).filter((x): x is number => x !== undefined);
    return { t, start: Math.min(...times), end: Math.max(...times) };
  });
  const widest = Math.max(1, ...spans.map((s) => s.end - s.start));
  return spans.map(({ t, start }) => {
    const bars: WaterfallBar[] = [];
    let at = 0;
    for (const p of CHAIN) {
      if (p === 'end-of-speech') continue;
      const ms = t.hops[p];
      if (ms === undefined) continue;
      bars.push({ hop: p, label: HOP_LABELS[p], left: (100 * at) / widest, width: (100 * ms) / widest, ms: Math.round(ms) });
      at += ms;
    }
    const heard = t.points['panel-audible'];
    return { turnId: t.turnId, totalMs: heard === undefined ? null : Math.round(heard - start), bars };
  });
}
