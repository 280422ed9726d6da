import type { Timers } from '../../../core/lifecycle/timers';

/** A fake clock for the lifecycle state machines: time moves only when `advance` says so. */
export class FakeTimers implements Timers {
  now = 0;
  private next = 1;
  private readonly due = new Map<number, { at: number; fn: () => void }>();

  setTimeout(fn: () => void, ms: number): number {
    const id = this.next++;
    this.due.set(id, { at: this.now + ms, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.due.delete(handle as number);
  }

  /** Timers still waiting. */
  get pending(): number {
    return this.due.size;
  }

  /** Moves the clock forward, running every timer that falls due on the way, in order. */
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      const [id, first] = [...this.due.entries()].sort((a, b) => a[1].at - b[1].at)[0] ?? [];
      if (id === undefined || !first || first.at > end) break;
      this.due.delete(id);
      this.now = first.at;
      first.fn();
    }
    this.now = end;
  }
}
