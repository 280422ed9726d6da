/** When the microphone feed counts as behind real time, and when as caught up (core/lifecycle/feed-lag.ts). */
import { afterEach, describe, expect, it } from 'vitest';
import { FeedLagWatch } from '../../../core/lifecycle/feed-lag';
import { lipsyncTunables as T, resetTunables } from '../../../core/tunables';

afterEach(() => resetTunables('lipsync'));

/** Frames every 32 ms with the given lags; the state changes reported, with the frame index. */
function run(lags: number[]): [number, boolean][] {
  const watch = new FeedLagWatch();
  const changes: [number, boolean][] = [];
  lags.forEach((lag, i) => {
    const changed = watch.frame(lag, i * 32);
    if (changed !== null) changes.push([i, changed]);
  });
  return changes;
}

const frames = (n: number, lag: number) => Array<number>(n).fill(lag);
const holdFrames = () => Math.ceil(T.feedCaughtUpHoldMs / 32);

describe('FeedLagWatch', () => {
  it('an on-time feed never reports', () => {
    expect(run(frames(500, 20))).toEqual([]);
    expect(run(frames(500, T.feedBehindMs))).toEqual([]);
  });

  it('one late frame puts it behind at once; it catches up only after the hold of on-time frames', () => {
    const changes = run([...frames(10, 20), T.feedBehindMs + 1, ...frames(holdFrames() + 5, 20)]);
    expect(changes[0]).toEqual([10, true]);
    expect(changes).toHaveLength(2);
    expect(changes[1]![1]).toBe(false);
    // The hold counts from the first on-time frame (index 11) until feedCaughtUpHoldMs have passed.
    expect((changes[1]![0] - 11) * 32).toBeGreaterThanOrEqual(T.feedCaughtUpHoldMs);
    expect((changes[1]![0] - 12) * 32).toBeLessThan(T.feedCaughtUpHoldMs);
  });

  it('frames between the two thresholds keep it behind, and restart the hold', () => {
    const between = (T.feedBehindMs + T.feedCaughtUpMs) / 2;
    const lags = [T.feedBehindMs + 50, ...frames(holdFrames() - 2, 10), between, ...frames(holdFrames() - 2, 10)];
    expect(run(lags)).toEqual([[0, true]]);
  });

  it('a second late spell while behind reports nothing new', () => {
    expect(run([500, 20, 600, 700, 20])).toEqual([[0, true]]);
  });
});
