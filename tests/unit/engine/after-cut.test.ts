/**
 * The reply right after an interruption (docs/echo.md, "The reply after an interruption"): in the room rig Chrome's
 * canceller left 3–6× more residual at the start of that reply than on the reply before the cut, and once held it
 * through the processed gate's floor; the fixture recogniser's words then cut it. On that reply a processed frame is a
 * candidate only where the unprocessed frame is over that track's measured floor. Real Silero on espeak speech
 * (conversation-sim.ts): a greeting measures both floors, a story is cut by "Stop, wait a second.", and the story is
 * told again after it, while the canceller lapses.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetTunables, setTunable } from '../../../core/tunables';
import type { UserTurn } from '../../../core/engine/types';
import { FRAME_MS } from '../../../core/engine/audio-frames';
import { TrackGate } from '../../../core/engine/barge-tracks';
import { ResidualFloor } from '../../../core/engine/residual-floor';
import { runScenario } from '../../fixtures/audio/conversation-sim';
import { TrackBuilder } from '../../fixtures/audio/make-audio';
import { lapsingRoom, loadTwoVads, STORY, storyOrGreeting } from '../../fixtures/audio/two-tracks';
import type { SileroVadJs } from '../../../models/vad/silero-js';

let vad: SileroVadJs;
let rawVad: SileroVadJs;
beforeAll(async () => {
  ({ vad, rawVad } = await loadTwoVads());
});
afterEach(() => resetTunables('engine'));

/** "Stop" is answered with the story again: the reply after the cut is long enough for the canceller to lapse in. */
function replyTo(turn: UserTurn): string {
  return turn.text.startsWith('Stop') ? STORY : storyOrGreeting(turn);
}

/**
 * Greeting, story, "Stop, wait a second." 4.2 s into it, and (`again`) the same again 5 s after the first. For 8 s
 * after the cut the canceller lapses in half the 320 ms windows (its residual there the echo at 0.3, not 0.005).
 */
function afterCut(opts: { again?: boolean; hello?: boolean }) {
  const t = new TrackBuilder().pause(500).say('Hello.').pause(9000);
  t.say('Tell me a long story about a dragon.').pause(4200).say('Stop, wait a second.');
  if (opts.again) t.pause(5000).say('Stop, wait a second.');
  if (opts.hello) t.pause(14_000).say('Hello.');
  t.pause(200);
  return runScenario(vad, {
    user: t.build(),
    segments: t.segments,
    reply: replyTo,
    ...lapsingRoom(rawVad, { gain: 0.3, everyMs: 320, share: 0.5, afterCutMs: 8000 }),
  });
}

/** The turn that answered "Stop, wait a second.": the reply after the cut. */
function followUpId(r: Awaited<ReturnType<typeof afterCut>>): string {
  const stop = r.respondCalls.find((c) => c.text.startsWith('Stop'));
  expect(stop).toBeDefined();
  return stop!.turnId;
}

describe('the reply after an interruption, its canceller re-converging', () => {
  it("the canceller's louder residual holds nothing: the story told after the cut plays to its end", async () => {
    const r = await afterCut({});
    const id = followUpId(r);
    expect(r.marks('barge-in')).toHaveLength(1); // the stop
    expect(r.marks('barge-tentative').filter((m) => m.turnId === id)).toHaveLength(0);
    expect(r.marks('done').some((m) => m.turnId === id)).toBe(true);
  });

  it('without the check that residual holds it through the floor the replies before the cut measured', async () => {
    setTunable('engine.bargeAfterCutCrossCheck', 0);
    setTunable('engine.bargeProcessedOverRawFloor', 0); // which asks the same of every reply (canceller-bursts.test.ts)
    const r = await afterCut({});
    const id = followUpId(r);
    const held = r.marks('barge-tentative').filter((m) => m.turnId === id);
    expect(held.length).toBeGreaterThan(0);
    expect(held.some((m) => !m.unprocessedTrack)).toBe(true);
  });

  it('a voice over that reply still interrupts it, held as soon as without the check', async () => {
    const r = await afterCut({ again: true });
    setTunable('engine.bargeAfterCutCrossCheck', 0);
    setTunable('engine.bargeProcessedOverRawFloor', 0); // which asks the same of every reply (canceller-bursts.test.ts)
    const without = await afterCut({ again: true });
    const id = followUpId(r);
    expect(r.marks('barge-in')).toHaveLength(2);
    expect(r.marks('barge-in')[1]!.turnId).toBe(id);
    expect(r.respondCalls.at(-1)!.text).toBe('Stop, wait a second.');
    const voiceHold = (x: typeof r) =>
      x
        .marks('barge-tentative')
        .filter((m) => m.turnId === id)
        .at(-1)!.at;
    expect(voiceHold(r)).toBe(voiceHold(without));
  });
});

describe('the floor after the reply to an interruption', () => {
  // The greeting after the story told again is judged at the floor the replies before the cut measured: the lapsing
  // canceller's residual on that story is not learned (it would lift the processed floor for the next three replies).
  const floors = (r: Awaited<ReturnType<typeof afterCut>>) => {
    const id = followUpId(r);
    const paths = r.marks('echo-path');
    const during = paths.filter((m) => m.turnId === id).at(-1)!.floorRms!;
    const next = paths.filter((m) => m.turnId === r.respondCalls.at(-1)!.turnId).at(-1)!.floorRms!;
    return { during, next, followsCut: paths.filter((m) => m.turnId === id).at(-1)!.followsCut };
  };

  it('is the floor from before the cut: the re-converging canceller is not learned', async () => {
    const r = await afterCut({ hello: true });
    expect(r.respondCalls.at(-1)!.text).toBe('Hello.');
    const { during, next, followsCut } = floors(r);
    expect(followsCut).toBe(true);
    expect(next).toBeCloseTo(during, 6);
  });

  it('without the check it is learned, and the floor rises', async () => {
    setTunable('engine.bargeAfterCutCrossCheck', 0);
    setTunable('engine.bargeProcessedOverRawFloor', 0); // which asks the same of every reply (canceller-bursts.test.ts)
    const { during, next } = floors(await afterCut({ hello: true }));
    expect(next).toBeGreaterThan(1.5 * during);
  });
});

describe('TrackGate.overEchoSoFar after a cut', () => {
  it("asks for the unprocessed floor at the reply's start, when this reply's echo has sustained nothing yet", () => {
    const gate = new TrackGate(true);
    for (let i = 0; i < 80; i++) gate.onFrame((i + 1) * FRAME_MS, 0.9, 0.008); // sustains 0.008: the floor is 0.02
    gate.reset();
    // The echo at its usual level, over the reply-so-far's minimum (0.01) but under the floor.
    expect(gate.overEchoSoFar(0.015, false)).toBe(true);
    expect(gate.overEchoSoFar(0.015, false, true)).toBe(false);
    expect(gate.overEchoSoFar(0.05, false, true)).toBe(true);
  });
});

describe('ResidualFloor.followsCut', () => {
  const play = (floor: ResidualFloor, frames: number) => {
    for (let i = 0; i < frames; i++) floor.onFrame(true, 0.01);
  };

  it('holds for the next reply that plays, through turns that played nothing, and ends with a reply played out', () => {
    const floor = new ResidualFloor();
    play(floor, 100);
    floor.endReply();
    expect(floor.followsCut).toBe(false);
    play(floor, 40);
    floor.interrupted();
    floor.endReply();
    expect(floor.followsCut).toBe(true);
    floor.endReply(); // a turn merged before its audio
    expect(floor.followsCut).toBe(true);
    play(floor, 100);
    floor.endReply();
    expect(floor.followsCut).toBe(false);
  });

  it('behind the canceller, the reply after a cut is not learned; on the unprocessed track it is', () => {
    for (const behindCanceller of [true, false]) {
      const floor = new ResidualFloor(behindCanceller);
      play(floor, 100);
      floor.endReply();
      const before = floor.floor;
      play(floor, 40);
      floor.interrupted();
      floor.endReply();
      for (let i = 0; i < 100; i++) floor.onFrame(true, 0.05); // the re-converging canceller's louder residual
      floor.endReply();
      if (behindCanceller) expect(floor.floor).toBe(before);
      else expect(floor.floor).toBeGreaterThan(before!);
    }
  });
});
