// A hand-driven clock: sleeps resolve only when the test advances time, so timeout tests never wait for real time.
import type { Clock } from '../../../core/tools/types';

export class ManualClock implements Clock {
  private t = 0;
  private sleepers: { at: number; resolve: () => void }[] = [];

  now(): number {
    return this.t;
  }

  /** How many sleeps are pending (armed deadlines). */
  get pending(): number {
    return this.sleepers.length;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const entry = { at: this.t + ms, resolve };
      const onAbort = (): void => {
        this.sleepers = this.sleepers.filter((s) => s !== entry);
        const e = new Error('aborted');
        e.name = 'AbortError';
        reject(e);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sleepers.push(entry);
    });
  }

  advance(ms: number): void {
    this.t += ms;
    const due = this.sleepers.filter((s) => s.at <= this.t);
    this.sleepers = this.sleepers.filter((s) => s.at > this.t);
    for (const s of due) s.resolve();
  }
}
