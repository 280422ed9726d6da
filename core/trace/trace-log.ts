/**
 * The turn trace kept by the offscreen document (docs/benchmarks.md, "What the user hears"): its own stamps, the
 * side panel's stamps on the panel's clock, and each panel's best clock offset; exported on the offscreen clock
 * together with the engine's stage marks. Bounded: the oldest stamps go first.
 */
import { better, type ClockEstimate } from './clock-sync';
import type { TraceStamp, TurnTraceExport } from '../protocol/trace';

export interface EngineMarkLike {
  name: string;
  at: number;
  turnId: string;
}

interface PanelStamp extends Omit<TraceStamp, 'context'> {
  panelId: string;
}

export class TraceLog {
  private readonly own: TraceStamp[] = [];
  private readonly panel: PanelStamp[] = [];
  private readonly clocks = new Map<string, ClockEstimate>();

  constructor(private readonly capacity = 4000) {}

  /** A stamp on this document's clock. */
  stamp(name: string, turnId: string, at: number, index?: number, info?: Record<string, number>): void {
    this.push(this.own, {
      name,
      turnId,
      at,
      context: 'offscreen',
      ...(index !== undefined ? { index } : {}),
      ...(info ? { info } : {}),
    });
  }

  /** A stamp a panel took on its own clock; mapped at export with that panel's best offset. */
  panelStamp(stamp: PanelStamp): void {
    this.push(this.panel, stamp);
  }

  /** A panel's estimate; the one with the smallest round trip is kept. */
  clock(panelId: string, estimate: ClockEstimate): void {
    this.clocks.set(panelId, better(this.clocks.get(panelId) ?? null, estimate));
  }

  /**
   * Every stamp on this document's clock, ordered by time: the engine's marks, this document's stamps, and the
   * panels' stamps shifted by their offsets (a panel with no estimate yet has its stamps left out).
   */
  export(marks: readonly EngineMarkLike[]): TurnTraceExport {
    const stamps: TraceStamp[] = [
      ...marks.map((m) => ({ name: m.name, turnId: m.turnId, at: m.at, context: 'offscreen' as const })),
      ...this.own,
    ];
    for (const { panelId, ...s } of this.panel) {
      const clock = this.clocks.get(panelId);
      if (clock) stamps.push({ ...s, at: s.at + clock.offsetMs, context: 'panel' });
    }
    stamps.sort((a, b) => a.at - b.at);
    const clocks = [...this.clocks].map(([panelId, c]) => ({ panelId, offsetMs: c.offsetMs, rttMs: c.rttMs }));
    return { clocks, stamps };
  }

  private push<T>(list: T[], item: T): void {
    list.push(item);
    if (list.length > this.capacity) list.splice(0, list.length - this.capacity);
  }
}
