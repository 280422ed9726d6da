/**
 * Both tracks at once (docs/echo.md, "Both tracks at once"; core/engine/barge-tracks.ts `JointRun`): a run of frames
 * that both tracks' gates took for speech over the reply holds it after `bargeJointFrames`, before either gate's own
 * `bargeFrames`. Real Silero on espeak speech (conversation-sim.ts).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FRAME_MS } from '../../../core/engine/audio-frames';
import { JointRun } from '../../../core/engine/barge-tracks';
import { engineTunables as T, resetTunables, setTunable } from '../../../core/tunables';
import { loadTwoVads, storyRun } from '../../fixtures/audio/two-tracks';
import type { SileroVadJs } from '../../../models/vad/silero-js';

let vad: SileroVadJs;
let rawVad: SileroVadJs;
beforeAll(async () => {
  ({ vad, rawVad } = await loadTwoVads());
});
afterEach(() => resetTunables('engine'));

/**
 * A greeting nobody talks over (the unprocessed gate measures its floor), then the story, with "Stop, wait a second."
 * over it when `interrupt`. The canceller leaves 0.02 of the echo and, as headphones or a quiet room would, the voice
 * whole; the unprocessed track has the echo at 0.3, 480 ms late.
 */
function run(interrupt: boolean) {
  return storyRun(
    vad,
    { greeting: true, ...(interrupt ? { stopAfterMs: 4200 } : {}) },
    {
      echoDelayMs: 480,
      unprocessed: { echoGain: 0.3, vad: rawVad },
    },
  );
}

describe('a run both tracks heard', () => {
  it('holds the reply sooner than either gate alone, and the voice still interrupts', async () => {
    const together = await run(true);
    const jointFrames = T.bargeJointFrames;
    setTunable('engine.bargeJointFrames', 0);
    // The processed gate alone as it was: its onset frames not also asked to be over the unprocessed floor.
    setTunable('engine.bargeProcessedOverRawFloor', 0);
    const alone = await run(true);
    const held = together.marks('barge-tentative');
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ bothTracks: true });
    expect(alone.marks('barge-tentative')[0]).not.toHaveProperty('bothTracks');
    // Held sooner: here by one frame less than the difference in length, as the unprocessed gate's own run began a
    // frame before the processed one's (a run both heard starts with the later of the two): its five frames ended
    // two frames after the joint two.
    const sooner = (T.bargeFrames - jointFrames - 1) * FRAME_MS;
    expect(sooner).toBe(2 * FRAME_MS);
    expect(alone.first('barge-tentative') - together.first('barge-tentative')).toBe(sooner);
    for (const r of [together, alone]) {
      expect(r.marks('barge-in')).toHaveLength(1);
      expect(r.respondCalls.at(-1)!.text).toBe('Stop, wait a second.');
    }
  });

  it("the reply's echo alone is not heard by both: neither reply is held", async () => {
    const r = await run(false);
    expect(r.marks('barge-tentative')).toHaveLength(0);
    expect(r.marks('barge-in')).toHaveLength(0);
    expect(r.marks('done')).toHaveLength(2);
  });
});

describe('JointRun', () => {
  it('gives the onset of a run of both once it has lasted bargeJointFrames, and starts again after a gap', () => {
    setTunable('engine.bargeJointFrames', 3);
    const j = new JointRun();
    expect(j.frame(1 * FRAME_MS, true)).toBeNull();
    expect(j.frame(2 * FRAME_MS, true)).toBeNull();
    expect(j.frame(3 * FRAME_MS, true)).toBe(0);
    expect(j.frame(4 * FRAME_MS, false)).toBeNull();
    expect(j.frame(5 * FRAME_MS, true)).toBeNull();
    expect(j.frame(6 * FRAME_MS, true)).toBeNull();
    expect(j.frame(7 * FRAME_MS, true)).toBe(4 * FRAME_MS);
  });

  it('never with bargeJointFrames at 0', () => {
    setTunable('engine.bargeJointFrames', 0);
    const j = new JointRun();
    for (let i = 1; i <= 10; i++) expect(j.frame(i * FRAME_MS, true)).toBeNull();
  });

  it('traces a reply’s frames both heard and their longest run, also with the rule off, and forgets them at a reset', () => {
    setTunable('engine.bargeJointFrames', 0);
    const j = new JointRun();
    const both = [true, true, false, true, true, true, false, false, true];
    both.forEach((b, i) => j.frame((i + 1) * FRAME_MS, b));
    expect(j.trace()).toEqual({ jointFrames: 6, jointLongestRun: 3 });
    j.reset();
    expect(j.trace()).toEqual({ jointFrames: 0, jointLongestRun: 0 });
  });
});

describe('after the speakers got louder', () => {
  // The greeting's echo measures both floors; from the story on the unprocessed echo is 10 dB louder and the canceller
  // lapses (its residual 0.3 in 30 % of 320 ms windows): both floors are stale. A run both tracks heard is then the
  // echo, and holds nothing; without `floorHolds` one held the story at 16.7 s (the processed gate's own hold at
  // 20.4 s, five frames of the lapses over its stale floor, is the stale-floor rule's: stale-floor.test.ts).
  it('a run both tracks heard over floors the echo has outgrown does not hold the reply', async () => {
    const r = await storyRun(
      vad,
      { greeting: true },
      {
        echoGain: 0.005,
        cancellerLapses: { gain: 0.3, everyMs: 320, share: 0.3, fromMs: 11000 },
        echoDelayMs: 480,
        unprocessed: { echoGain: 0.1, vad: rawVad, echoGainFrom: { atMs: 11000, gain: 0.32 } },
      },
    );
    expect(r.marks('done')).toHaveLength(2);
    expect(r.marks('barge-tentative').filter((m) => m.bothTracks)).toHaveLength(0);
  });
});
