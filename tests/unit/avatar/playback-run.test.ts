import { describe, expect, it } from 'vitest';
import { PlaybackRun } from '../../../components/avatar/playback-run';

describe('PlaybackRun: one start per run of the player', () => {
  it('reports the first start of a run, not a second one', () => {
    const run = new PlaybackRun();
    run.queued();
    expect(run.workletStarted()).toBe('report');
    run.queued();
    expect(run.workletStarted()).toBe('repeat');
    expect(run.end()).toBe(true);
    expect(run.end()).toBe(false);
  });

  it('a start still on its way when the reply was cut does not take the next reply’s start', () => {
    // The worklet drained, a chunk woke it (it posted playback-started), and the stop came before that message did.
    const run = new PlaybackRun();
    run.queued();
    expect(run.workletStarted()).toBe('report');
    run.queued();
    expect(run.end()).toBe(true); // the cut
    expect(run.workletStarted()).toBe('stale');
    expect(run.isPlaying).toBe(false);
    // The next reply's first chunk, and the worklet's start for it.
    run.queued();
    expect(run.workletStarted()).toBe('report');
  });
});
