import { describe, expect, it } from 'vitest';
import { PlaybackRun } from '../../../components/avatar/playback-run';

describe('PlaybackRun: one start per run of the player', () => {
  it('reports the first start of a run, not a second one', () => {
    const run = new PlaybackRun();
    run.queued();
    expect(run.workletStarted()).toBe('report');
    run.queued();
    expect(run.workletStarted()).toBe('repeat');
    expect(run.end(false)).toBe(true);
    expect(run.end(false)).toBe(false);
  });

  it('a start still on its way when the reply was cut does not take the next reply’s start', () => {
    // The worklet drained, a chunk woke it (it posted playback-started), and the stop came before that message did.
    const run = new PlaybackRun();
    run.queued();
    expect(run.workletStarted()).toBe('report');
    run.queued();
    expect(run.end(true)).toBe(true); // the cut
    expect(run.workletStarted()).toBe('stale');
    expect(run.isPlaying).toBe(false);
    // The next reply's first chunk, and the worklet's start for it.
    run.queued();
    expect(run.workletStarted()).toBe('report');
  });

  it('a start after a drain, with the chunk that woke the worklet queued before the drain was read, is a new run', () => {
    // The worklet drained and said so; the next chunk was already on its way and woke it before that report was read.
    // The run plays: it must count (its levels, its own end) or the reply is "done" while it still sounds.
    const run = new PlaybackRun();
    run.queued();
    expect(run.workletStarted()).toBe('report');
    run.queued();
    expect(run.end(false)).toBe(true); // the drain's report, read after the next chunk went out
    expect(run.workletStarted()).toBe('report');
    expect(run.isPlaying).toBe(true);
    expect(run.end(false)).toBe(true); // and that run's own end is reported
  });
});
