import type { Clock } from '../../../core/tools/types';

/** A clock whose sleeps advance time instantly and are recorded, so back-off is asserted without waiting. */
export function fakeClock(start = Date.UTC(2026, 2, 3, 13, 15)): Clock & { sleeps: number[]; advance(ms: number): void } {
  let t = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
    sleep: async (ms, signal) => {
      if (signal?.aborted) {
        const e = new Error('aborted');
        e.name = 'AbortError';
        throw e;
      }
      sleeps.push(ms);
      t += ms;
    },
  };
}
