/**
 * The speakers turned up (docs/echo.md, "The speakers turned up"): each gate's floor was measured on the replies
 * before, so a louder echo passes it. A gate whose floor this reply's echo has outgrown holds the reply only where the
 * other track's frame is also over the echo that track has sustained this reply. Real Silero on espeak speech
 * (conversation-sim.ts); the greeting measures both floors, the story is the louder reply.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FRAME_MS } from '../../../core/engine/audio-frames';
import { TrackGate } from '../../../core/engine/barge-tracks';
import type { ScenarioInput } from '../../fixtures/audio/conversation-sim';
import { resetTunables, setTunable } from '../../../core/tunables';
import { loadTwoVads, storyRun } from '../../fixtures/audio/two-tracks';
import type { SileroVadJs } from '../../../models/vad/silero-js';

let vad: SileroVadJs;
let rawVad: SileroVadJs;
beforeAll(async () => {
  ({ vad, rawVad } = await loadTwoVads());
});
afterEach(() => resetTunables('engine'));

/**
 * From the story on (11 s) the unprocessed echo is `rawGain` (0.1 over the greeting; 0.32 is 10 dB louder); `lapses`:
 * the canceller's residual rises too.
 */
function louder(opts: { lapses: boolean; rawGain?: number; stopAfterMs?: number; nearEnd?: number }) {
  const input: Partial<ScenarioInput> = {
    echoGain: 0.005,
    echoDelayMs: 480,
    unprocessed: { echoGain: 0.1, vad: rawVad, echoGainFrom: { atMs: 11000, gain: opts.rawGain ?? 0.32 } },
    ...(opts.nearEnd !== undefined ? { nearEndWhilePlaying: opts.nearEnd } : {}),
    ...(opts.lapses ? { cancellerLapses: { gain: 0.3, everyMs: 320, share: 0.3, fromMs: 11000 } } : {}),
  };
  return storyRun(vad, { greeting: true, ...(opts.stopAfterMs !== undefined ? { stopAfterMs: opts.stopAfterMs } : {}) }, input);
}

describe('after the speakers got louder', () => {
  it("the canceller's lapses over the processed gate's stale floor hold nothing: the story plays to its end", async () => {
    const r = await louder({ lapses: true });
    expect(r.marks('barge-tentative')).toHaveLength(0);
    expect(r.marks('barge-in')).toHaveLength(0);
    expect(r.marks('done')).toHaveLength(2);
  });

  it('without the rule the processed gate holds the story on those lapses', async () => {
    setTunable('engine.bargeStaleFloorRatio', 0);
    // Nor the unprocessed floor's rule, which holds these bursts back too (canceller-bursts.test.ts).
    setTunable('engine.bargeProcessedOverRawFloor', 0);
    const r = await louder({ lapses: true });
    expect(r.marks('barge-tentative').length).toBeGreaterThan(0);
  });

  it('a voice over the louder story still interrupts it', async () => {
    const r = await louder({ lapses: true, stopAfterMs: 4200, nearEnd: 0.3 });
    expect(r.marks('barge-in')).toHaveLength(1);
    expect(r.respondCalls.at(-1)!.text).toBe('Stop, wait a second.');
  });
});

describe('after the speakers got 14 dB louder, the canceller keeping up', () => {
  // The unprocessed gate's floor, measured on the greeting's echo at 0.1, is passed by the story's at 0.5 wherever the
  // VAD calls it speech. Judged before its run, the floor is stale only once the louder echo has sustained a run: the
  // story's first run of echo (13.6 s) is still held, and released; none after it.
  it('the louder echo over the unprocessed gate holds the story once at most, and it plays to its end', async () => {
    const r = await louder({ lapses: false, rawGain: 0.5 });
    expect(r.marks('barge-tentative').length).toBeLessThanOrEqual(1);
    expect(r.marks('barge-in')).toHaveLength(0);
    expect(r.marks('done')).toHaveLength(2);
  });

  it('without the rule that gate holds the story again and again', async () => {
    setTunable('engine.bargeStaleFloorRatio', 0);
    const r = await louder({ lapses: false, rawGain: 0.5 });
    const held = r.marks('barge-tentative');
    expect(held.length).toBeGreaterThanOrEqual(3);
    expect(held.every((m) => m.unprocessedTrack)).toBe(true);
  });

  it('a voice both tracks hear still interrupts it', async () => {
    const r = await louder({ lapses: false, rawGain: 0.5, stopAfterMs: 4200, nearEnd: 1 });
    expect(r.marks('barge-in')).toHaveLength(1);
    expect(r.respondCalls.at(-1)!.text).toBe('Stop, wait a second.');
  });
});

describe('the same speakers', () => {
  // A voice's own frames lift what this reply's "echo" has sustained on its track over twice the floor: judged during
  // its run, the voice would make its own gate's floor stale and need the other track, on which the canceller turned
  // it down. Judged before the run, the rule changes nothing here.
  it('a voice only the unprocessed track hears whole is held when it would be without the rule, and interrupts', async () => {
    const voice = { lapses: false, rawGain: 0.1, stopAfterMs: 4200, nearEnd: 0.05 };
    const r = await louder(voice);
    setTunable('engine.bargeStaleFloorRatio', 0);
    const without = await louder(voice);
    expect(r.marks('barge-tentative')[0]).toMatchObject({ unprocessedTrack: true });
    expect(r.first('barge-tentative')).toBe(without.first('barge-tentative'));
    expect(r.marks('barge-in')).toHaveLength(1);
    expect(r.respondCalls.at(-1)!.text).toBe('Stop, wait a second.');
  });
});

describe('TrackGate.floorStale', () => {
  /** Feeds voiced frames at these levels as one reply, asking `floorStale` before each (as the engine does). */
  function reply(gate: TrackGate, levels: number[]) {
    gate.reset();
    return levels.map((rms, i) => ({ stale: gate.floorStale(), kind: gate.onFrame((i + 1) * FRAME_MS, 0.9, rms).kind }));
  }

  it('is judged before a run and held through it: a voice whose first frames were under the gate does not stale it', () => {
    const gate = new TrackGate();
    // A reply whose echo sustained 0.008: the floor is 2.5 × that, 0.02.
    reply(
      gate,
      Array.from({ length: 80 }, () => 0.008),
    );
    const quiet = Array.from({ length: 20 }, () => 0.004);
    // Three voiced frames under the gate, then the voice over it: its five voiced frames sustain 0.019, and 2.5 × that
    // is over twice the floor once the run has begun.
    const frames = reply(gate, [...quiet, 0.019, 0.019, 0.019, 0.1, 0.1, 0.1, 0.1, 0.1]);
    expect(frames.map((f) => f.stale)).toEqual(frames.map(() => false));
    expect(frames.at(-1)!.kind).toBe('duck');
  });

  it('says so when this reply’s echo sustained over twice the floor before a run', () => {
    const gate = new TrackGate();
    reply(
      gate,
      Array.from({ length: 80 }, () => 0.008),
    );
    const frames = reply(
      gate,
      Array.from({ length: 20 }, () => 0.017),
    );
    expect(frames[4]!.stale).toBe(false); // five frames sustain it
    expect(frames[5]!.stale).toBe(true);
    setTunable('engine.bargeStaleFloorRatio', 0);
    expect(gate.floorStale()).toBe(false);
  });
});
