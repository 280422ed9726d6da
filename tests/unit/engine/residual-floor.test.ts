/**
 * The barge gate's measured floor (core/engine/residual-floor.ts, docs/echo.md "The measured floor"): each reply
 * nobody talked over measures the level the canceller's residual sustained over an onset run, and the gate's floor
 * follows it instead of the fixed `bargeMinRms`. No playback levels here, so the gate is the floor alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FRAME_MS } from '../../../core/engine/audio-frames';
import { BargeDetector, type BargeDecision } from '../../../core/engine/barge-detector';
import { ResidualFloor } from '../../../core/engine/residual-floor';
import { engineTunables as T, resetTunables, setTunable } from '../../../core/tunables';

afterEach(() => resetTunables('engine'));

/**
 * Feeds one reply's microphone frames (all voiced unless the level is negative: then unvoiced at its magnitude). What
 * the engine does with a decision is done here too: a barge interrupts; a released burst is, with `echoWords`, one
 * whose words were the reply's own (the engine then lets the reply go on), else the user's "stop" (it interrupts).
 */
function play(barge: BargeDetector, levels: number[], echoWords = false): BargeDecision['kind'][] {
  barge.reset();
  return levels.map((rms, i) => {
    let kind = barge.onFrame((i + 1) * FRAME_MS, rms < 0 ? 0.1 : 0.9, Math.abs(rms)).kind;
    // A burst that has lasted: the engine reads its words; a voice's interrupt, the reply's own echo keeps it held.
    if (kind === 'long') kind = echoWords ? 'none' : 'barge';
    if (kind === 'barge' || (kind === 'release' && !echoWords)) barge.interrupted();
    else if (kind === 'release') barge.burstReleased(true);
    return kind;
  });
}

/**
 * A residual as the room rig showed it: voiced most of the time, in syllable-long bursts with single loud peaks. Each
 * burst is four frames at `peak` and one at `low`, so an onset run over the gate is never longer than four frames
 * while the gate is over `low`, and the level sustained over five frames is `low`.
 */
function residual(frames: number, low: number, peak: number): number[] {
  return Array.from({ length: frames }, (_, i) => (i % 5 === 4 ? low : i % 11 === 0 ? -peak : peak));
}

describe('the measured floor of the barge gate', () => {
  it('is the largest level the residual sustained over an onset run, times the margin (window rank 1)', () => {
    setTunable('engine.residualWindowRank', 1);
    const floor = new ResidualFloor();
    // Runs of voiced frames: five at ≥ 0.03 (sustained 0.03), then a longer one whose weakest five-frame stretch
    // holds 0.04; a single unvoiced frame breaks a run.
    for (const [voiced, rms] of [
      ...[0.05, 0.03, 0.06, 0.04, 0.035].map((r) => [true, r] as const),
      [false, 0.2] as const,
      ...[0.04, 0.045, 0.05, 0.041, 0.04, 0.01].map((r) => [true, r] as const),
      ...Array.from({ length: 60 }, () => [false, 0.001] as const),
    ])
      floor.onFrame(voiced, rms);
    expect(floor.replyRunLevel).toBeCloseTo(0.04, 6);
    expect(floor.floor).toBeNull(); // not learned until the reply is over
    floor.endReply();
    expect(floor.floor).toBeCloseTo(T.bargeResidualMargin * 0.04, 6);
  });

  it("is at most residualPeakOverRank times the reply's residualWindowRank-th loudest window", () => {
    const W = T.residualWindowFrames;
    const { bargeResidualMargin: margin, residualPeakOverRank: cap } = T;
    /** One reply: `windows` windows of residual sustained at `level`, with `burst` frames at 0.08 from frame 40. */
    const reply = (windows: number, level: number, burst = 0) => {
      const floor = new ResidualFloor();
      for (let i = 0; i < windows * W; i++) floor.onFrame(true, i >= 40 && i < 40 + burst ? 0.08 : level);
      floor.endReply();
      return floor.floor;
    };
    // A 2 s voice (62 frames) across three windows of a 10 s reply: the fourth loudest window is the echo's, and the
    // level is twice that, not the voice's.
    expect([T.residualWindowRank, cap]).toEqual([4, 2]);
    expect(reply(10, 0.006, 62)).toBeCloseTo(margin * cap * 0.006, 6);
    // An echo that grew across the reply (the speakers turned up) is learned whole.
    expect(reply(10, 0.03)).toBeCloseTo(margin * 0.03, 6);
    // A short reply sets aside at most half its windows: in three, the second loudest is the voice's.
    expect(reply(3, 0.006, 62)).toBeCloseTo(margin * 0.08, 6);
    // With rank 1 the voice is the level, the floor over the voice (2.5 × 0.08 = 0.2): every later one is missed.
    setTunable('engine.residualWindowRank', 1);
    expect(reply(10, 0.006, 62)).toBeCloseTo(margin * 0.08, 6);
  });

  it('a voice chopped under the gate, learned at its level, no longer hides the next one (the cascade)', () => {
    // docs/echo.md, "A missed voice": the canceller's double-talk suppression chops a voice over the reply into runs
    // of four frames over the gate (0.03, from a louder reply before), one under; every frame voiced, so it sustains
    // 0.025 over five, and ducks nothing.
    const W = T.residualWindowFrames;
    const chopped = Array.from({ length: 62 }, (_, i) => (i % 5 === 4 ? 0.025 : 0.05));
    const echo = (n: number, level = 0.004) => Array.from({ length: n }, () => level);
    const voice = Array.from({ length: 20 }, () => 0.045); // the next interruption, steadier
    const session = () => {
      const barge = new BargeDetector();
      play(barge, echo(4 * W, 0.012)); // measured: the floor 2.5 × 0.012 = 0.03
      const missed = play(barge, [...echo(3 * W), ...chopped, ...echo(5 * W)]);
      play(barge, []); // the reply is over: learned
      return { missed, floor: barge.floor, next: play(barge, [...echo(4 * W), ...voice]) };
    };
    const capped = session();
    expect(capped.missed).not.toContain('duck');
    // The voice's reply taught twice its echo's level (the cap), and the floor is the last reply's: 2.5 × 2 × 0.004.
    expect(capped.floor).toBeCloseTo(T.bargeResidualMargin * T.residualPeakOverRank * 0.004, 6);
    expect(capped.next).toContain('barge');
    // Learned at its level (rank 1), the chopped voice lifts the floor to 2.5 × 0.025 = 0.0625, over the next voice.
    setTunable('engine.residualWindowRank', 1);
    const uncapped = session();
    expect(uncapped.missed).not.toContain('duck');
    expect(uncapped.floor).toBeCloseTo(0.0625, 6);
    expect(uncapped.next).not.toContain('duck');
  });

  // The 24-room grid of 2026-12-07: with the largest of the last three replies, a louder room's floor (0.07–0.25) stood
  // over the voice in the quieter rooms after it, and 8 of its 13 interruptions were missed (`residualReplies`).
  it('the speakers turned down: the next reply measures the quieter room, and a voice over it interrupts', () => {
    const W = T.residualWindowFrames;
    const barge = new BargeDetector();
    expect(play(barge, residual(4 * W, 0.016, 0.05))).not.toContain('duck'); // loud: it sustains 0.016
    play(barge, residual(4 * W, 0.003, 0.01)); // the volume turned down
    play(barge, []);
    expect(barge.floor).toBe(T.bargeLearnedMinRms); // 2.5 × 0.003, not 2.5 × 0.016 = 0.04
    const voice = Array.from({ length: 20 }, () => 0.03);
    expect(play(barge, [...residual(2 * W, 0.003, 0.01), ...voice])).toContain('barge');
  });

  it('a reply whose echo is as loud as the measured ones has not outgrown the floor: peak against peak', () => {
    const W = T.residualWindowFrames;
    const floor = new ResidualFloor();
    // Ten windows at 0.01, three of them with a stretch at 0.03: the level is 2 × 0.01 (the cap), the loudest 0.03.
    const reply = () => {
      for (let i = 0; i < 10 * W; i++) {
        const w = Math.floor(i / W);
        floor.onFrame(true, w % 3 === 0 && w < 9 && i % W < 12 ? 0.03 : 0.01);
      }
    };
    reply();
    floor.endReply();
    expect(floor.floor).toBeCloseTo(T.bargeResidualMargin * T.residualPeakOverRank * 0.01, 6);
    reply(); // the same again: its loudest stretch is no louder than the last reply's
    expect(floor.provisional).toBeCloseTo(T.bargeResidualMargin * 0.03, 6);
    expect(floor.outgrownBy(1)).toBe(false);
    // Louder than any stretch measured: outgrown.
    for (let i = 0; i < 6; i++) floor.onFrame(true, 0.04);
    expect(floor.outgrownBy(1)).toBe(true);
  });

  it('the window rank counts only what the floor may learn: a backchannel released is zeroed, a cut is dropped', () => {
    const W = T.residualWindowFrames;
    // Ten windows at 0.006, but for bursts at 0.05 in windows 2, 4, 6 and 8: echo bursts released by their words count.
    const withBursts = (echo: boolean) => {
      const floor = new ResidualFloor();
      for (let i = 0; i < 10 * W; i++) {
        const burst = i % (2 * W) === W + 2;
        if (burst) {
          floor.onFrame(true, 0.05);
          floor.runStarted();
          for (let k = 0; k < 6; k++, i++) floor.onFrame(true, 0.05);
          floor.ducked();
          floor.released(echo);
        } else floor.onFrame(true, 0.006);
      }
      floor.endReply();
      return floor.floor;
    };
    expect(withBursts(true)).toBeCloseTo(T.bargeResidualMargin * 0.05, 6);
    expect(withBursts(false)).toBeCloseTo(T.bargeResidualMargin * 0.006, 6);
  });

  it('never goes under bargeLearnedMinRms (headphones: no residual at all)', () => {
    const floor = new ResidualFloor();
    for (let i = 0; i < 100; i++) floor.onFrame(false, 0.0005);
    floor.endReply();
    expect(floor.floor).toBe(T.bargeLearnedMinRms);
  });

  it('learns only what came before speech that interrupted the reply, and nothing from too little of it', () => {
    setTunable('engine.residualWindowRank', 1); // the loudest anywhere: a voice's frame left in would be the level
    const floor = new ResidualFloor();
    for (let i = 0; i < 100; i++) floor.onFrame(true, 0.01);
    floor.onFrame(true, 0.2);
    floor.runStarted();
    for (let i = 0; i < 20; i++) floor.onFrame(true, 0.2);
    floor.ducked();
    floor.interrupted();
    for (let i = 0; i < 50; i++) floor.onFrame(true, 0.3);
    floor.endReply();
    expect(floor.floor).toBeCloseTo(T.bargeResidualMargin * 0.01, 6);
    // A reply ducked before it had played residualMinFrames frames teaches nothing.
    const early = new ResidualFloor();
    for (let i = 0; i < T.residualMinFrames - 1; i++) early.onFrame(true, 0.05);
    early.onFrame(true, 0.2);
    early.runStarted();
    early.ducked();
    early.interrupted();
    for (let i = 0; i < 100; i++) early.onFrame(true, 0.05);
    early.endReply();
    expect(early.floor).toBeNull();
  });

  it('remembers the last residualReplies replies: a louder room is kept until it has left them', () => {
    setTunable('engine.residualReplies', 2);
    const floor = new ResidualFloor();
    for (const level of [0.04, 0.01, 0.01]) {
      for (let i = 0; i < 80; i++) floor.onFrame(true, level);
      floor.endReply();
    }
    expect(floor.floor).toBeCloseTo(T.bargeResidualMargin * 0.01, 6);
  });

  it('quiet room: a voice the canceller turned down under the fixed floor interrupts once the residual is known', () => {
    const barge = new BargeDetector();
    const voice = Array.from({ length: 20 }, () => 0.015); // under bargeMinRms (0.02)
    // With the fixed floor the soft voice does not duck the reply.
    expect(play(new BargeDetector(), [...residual(80, 0.001, 0.003), ...voice])).not.toContain('duck');
    // A first reply nobody talked over: the next one's floor is measured.
    expect(play(barge, residual(80, 0.001, 0.003))).not.toContain('duck');
    expect(play(barge, [...residual(80, 0.001, 0.003), ...voice])).toContain('duck');
    expect(barge.replyTrace()).toMatchObject({ floorRms: T.bargeLearnedMinRms });
  });

  it('a reply the user talked over (it ducked) teaches only the echo before the voice, however loud the voice', () => {
    const barge = new BargeDetector();
    expect(play(barge, [...residual(80, 0.012, 0.03), ...Array.from({ length: 20 }, () => 0.1)])).toContain('duck');
    play(barge, []);
    expect(barge.floor).toBeCloseTo(T.bargeResidualMargin * 0.012, 6);
  });

  it('a room that got louder: the echo that ducks the reply (released by its words) raises the floor over it', () => {
    const barge = new BargeDetector();
    play(barge, residual(80, 0.004, 0.01)); // a quiet room: the floor goes to its minimum
    play(barge, []);
    expect(barge.floor).toBe(T.bargeLearnedMinRms);
    // The volume goes up: the echo's sentences now hold 0.03 for 10 frames, with pauses between them. Each ducks the
    // reply, and its words are the reply's own, so the duck is released and counts as echo: the next reply's floor is
    // over it.
    const louder = Array.from({ length: 120 }, (_, i) => (i % 20 < 10 ? 0.03 : -0.001));
    expect(play(barge, louder, true)).toContain('duck');
    expect(play(barge, louder, true)).not.toContain('duck');
    expect(barge.floor).toBeGreaterThan(0.02);
  });

  it('a voice the gate did not hear is learned as the echo (a weakness the canceller is to remove: docs/echo.md)', () => {
    const voice = Array.from({ length: 20 }, () => 0.015);
    const blind = new BargeDetector();
    play(blind, [...residual(80, 0.001, 0.003), ...voice]);
    play(blind, residual(80, 0.001, 0.003));
    expect(blind.floor).toBeCloseTo(T.bargeResidualMargin * 0.015, 6);
  });

  it("a listener's backchannel that ducked the reply is the user's voice: released, and not learned", () => {
    setTunable('engine.residualWindowRank', 1); // a burst this short is set aside by the window rank alone
    /** A reply's residual at 0.004, then a burst at 0.05 that ducks it and is released as echo or not. */
    const duckedAndReleased = (echo: boolean) => {
      const floor = new ResidualFloor();
      for (let i = 0; i < 80; i++) floor.onFrame(true, 0.004);
      floor.onFrame(true, 0.05);
      floor.runStarted();
      for (let i = 0; i < 6; i++) floor.onFrame(true, 0.05);
      floor.ducked();
      floor.released(echo);
      floor.endReply();
      return floor.floor;
    };
    expect(duckedAndReleased(false)).toBeCloseTo(Math.max(T.bargeLearnedMinRms, T.bargeResidualMargin * 0.004), 6);
    // Released as the reply's echo instead, the same burst is learned.
    expect(duckedAndReleased(true)).toBeCloseTo(T.bargeResidualMargin * 0.05, 6);
  });

  it('loud room: a residual a little louder than the fixed floor does not duck once the residual is known', () => {
    const barge = new BargeDetector();
    // The first reply's residual holds 0.018 over five frames (under the fixed floor, so it does not duck itself).
    expect(play(barge, residual(120, 0.018, 0.05))).not.toContain('duck');
    expect(barge.floor).toBe(T.bargeMinRms); // learned only when the reply is over
    // The next reply's residual is a fifth louder: over the fixed floor, under the measured one.
    const louder = residual(120, 0.0216, 0.06);
    expect(play(barge, louder)).not.toContain('duck');
    expect(barge.floor).toBeCloseTo(T.bargeResidualMargin * 0.018, 6);
    // The user's voice over it still interrupts.
    const kinds = play(barge, [...louder, ...Array.from({ length: 20 }, () => 0.08)]);
    expect(kinds).toContain('duck');
    expect(kinds).toContain('barge');
  });
});
