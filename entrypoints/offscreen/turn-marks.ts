import type { TurnEvent } from '../../core/engine/types';

/** One stage of one turn as tests and benches read it (`conversation/marks`). */
export interface TurnMark {
  name: string;
  at: number;
  /** The same moment on the wall clock (ms since the epoch), to line marks up with recordings made outside the browser. */
  wallAt: number;
  turnId: string;
  /** The stage's plain numeric and boolean fields (e.g. a speech start's capture lag). */
  fields?: Record<string, number | boolean>;
}

/** The engine's recent stage marks, newest last; bounded so a long session does not grow it without end. */
export class TurnMarks {
  private readonly marks: TurnMark[] = [];

  add(event: TurnEvent): void {
    const fields: Record<string, number | boolean> = {};
    for (const [k, v] of Object.entries(event))
      if (k !== 'at' && (typeof v === 'number' || typeof v === 'boolean')) fields[k] = v;
    this.marks.push({
      name: event.stage,
      at: event.at,
      // The engine's clock is this document's performance.now(); the wall clock is read at the mark, so it is on
      // the same scale as Date.now() outside the browser however long this document has lived.
      wallAt: Math.round(Date.now() - (performance.now() - event.at)),
      turnId: event.turnId,
      ...(Object.keys(fields).length > 0 ? { fields } : {}),
    });
    if (this.marks.length > 2000) this.marks.splice(0, 1000);
  }

  list(): TurnMark[] {
    return [...this.marks];
  }
}
