/**
 * Two microphone tracks gating one reply (core/engine/barge-tracks.ts, docs/echo.md "Both tracks gate a barge-in"):
 * either track lowers the reply and either interrupts it; a burst is let go only once neither still decides on it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FRAME_MS } from '../../../core/engine/audio-frames';
import { BargeDetector, type BargeDecision } from '../../../core/engine/barge-detector';
import { mergeBargeDecisions } from '../../../core/engine/barge-tracks';
import { ResidualFloor } from '../../../core/engine/residual-floor';
import { engineTunables as T, resetTunables, setTunable } from '../../../core/tunables';

afterEach(() => resetTunables('engine'));

const none: BargeDecision = { kind: 'none' };
const duck = (onsetAt: number): BargeDecision => ({ kind: 'duck', onsetAt });
const barge = (onsetAt: number): BargeDecision => ({ kind: 'barge', onsetAt });
const release = (onsetAt: number): BargeDecision => ({ kind: 'release', onsetAt, voicedFrames: 6 });

describe('merging the two tracks’ decisions', () => {
  it('either track interrupts, from the earlier onset of the two', () => {
    expect(mergeBargeDecisions(none, barge(300), true, false)).toEqual(barge(300));
    expect(mergeBargeDecisions(barge(500), none, true, false)).toEqual(barge(500));
    expect(mergeBargeDecisions(barge(500), barge(200), true, false)).toEqual(barge(200));
    // One interrupts while the other lets its burst go on the same frame: the interruption wins.
    expect(mergeBargeDecisions(release(100), barge(400), true, false)).toEqual(barge(400));
  });

  it('either track lowers the reply, once: a second duck while one is undecided changes nothing', () => {
    expect(mergeBargeDecisions(none, duck(96), false, true)).toEqual(duck(96));
    expect(mergeBargeDecisions(duck(64), none, false, true)).toEqual(duck(64));
    expect(mergeBargeDecisions(duck(64), none, true, true)).toEqual(none);
  });

  it('speech that has lasted on either track has its words read, unless the other interrupts on that frame', () => {
    const long: BargeDecision = { kind: 'long', onsetAt: 64, voicedFrames: 14 };
    expect(mergeBargeDecisions(long, none, true, true)).toEqual(long);
    expect(mergeBargeDecisions(none, long, true, true)).toEqual(long);
    expect(mergeBargeDecisions(long, barge(32), true, true)).toEqual(barge(32));
  });

  it('a burst is let go only when the other track is not deciding on it', () => {
    expect(mergeBargeDecisions(release(64), none, true, false)).toEqual(release(64));
    expect(mergeBargeDecisions(release(64), none, true, true)).toEqual(none);
    // One lets go as the other ducks: the reply stays lowered for the other's decision.
    expect(mergeBargeDecisions(release(64), duck(300), true, true)).toEqual(none);
  });
});

describe('the floor of the track that did not hear the interruption', () => {
  /** A reply's residual at `echo` for `frames` voiced frames, then the user's voice at `voice` for `voiceFrames`. */
  function reply(floor: ResidualFloor, echo: number, frames: number, voice: number, voiceFrames: number): void {
    for (let i = 0; i < frames; i++) floor.onFrame(true, echo);
    for (let i = 0; i < voiceFrames; i++) floor.onFrame(true, voice);
  }

  it('forgets what it measured since the onset the other track heard: the voice is not learned as echo', () => {
    const floor = new ResidualFloor();
    reply(floor, 0.004, 80, 0.015, 14);
    // The other track interrupted 14 frames after the onset (its confirmation): those frames were the user's.
    floor.interrupted(14 + 1);
    floor.endReply();
    expect(floor.floor).toBeCloseTo(Math.max(T.bargeLearnedMinRms, T.bargeResidualMargin * 0.004), 6);
  });

  it('without the onset (the same track interrupted), a voice under this gate would have been learned', () => {
    const floor = new ResidualFloor();
    reply(floor, 0.004, 80, 0.015, 14);
    floor.interrupted();
    floor.endReply();
    expect(floor.floor).toBeCloseTo(T.bargeResidualMargin * 0.015, 6);
  });

  it('an onset further back than it keeps undoes all it kept, not more', () => {
    const floor = new ResidualFloor();
    reply(floor, 0.004, 100, 0.015, 10);
    floor.interrupted(Math.round(5000 / FRAME_MS));
    floor.endReply();
    // 110 frames minus the 64 kept: 46 are left, under residualMinFrames, so the reply teaches nothing.
    expect(floor.floor).toBeNull();
  });
});

describe('the unprocessed track’s gate before its floor is measured', () => {
  /** One reply's frames, all voiced at `rms` (no playback levels: the gate is its floor), then its end; the kinds. */
  function reply(gate: BargeDetector, rms: number, frames: number): string[] {
    const kinds = Array.from({ length: frames }, (_, i) => gate.onFrame((i + 1) * FRAME_MS, 0.9, rms).kind);
    gate.reset(); // the next reply begins: this one is learned from
    return kinds;
  }

  it('decides nothing on a first reply whose echo is over the fixed floor (a fresh session in a loud room)', () => {
    const echo = 1.5 * T.bargeMinRms;
    expect(reply(new BargeDetector(true), echo, 80)).not.toContain('duck');
    // What it guards: the same echo through a gate that trusts the fixed floor ducks the reply.
    expect(reply(new BargeDetector(), echo, 80)).toContain('duck');
  });

  it('once that reply is measured, a voice over its floor lowers the next one', () => {
    const gate = new BargeDetector(true);
    reply(gate, 0.01, 80);
    expect(gate.floor).toBeCloseTo(T.bargeResidualMargin * 0.01, 6);
    expect(reply(gate, 2 * gate.floor, 20)).toContain('duck');
  });
});

describe('one track: speech over the reply that has lasted', () => {
  /** A reply playing (calibrated on silence at the mic: a clean path), then `voice` frames of a voice, then quiet. */
  function overReply(voice: number, quiet = 20): { frame: number; kind: BargeDecision['kind'] }[] {
    const d = new BargeDetector();
    const out: { frame: number; kind: BargeDecision['kind'] }[] = [];
    for (let i = 0; i < 40 + voice + quiet; i++) {
      const at = (i + 1) * FRAME_MS;
      d.onPlaybackLevel(at, 0.02);
      const speaking = i >= 40 && i < 40 + voice;
      const kind = d.onFrame(at, speaking ? 0.95 : 0.02, speaking ? 0.3 : 0.001).kind;
      if (kind !== 'none') out.push({ frame: i - 40 + 1, kind });
      if (kind === 'barge') break; // the engine hands the speech to the next turn: this reply is over
    }
    return out;
  }

  it('asks for its words at the confirm and every recheck, and interrupts by length at the longest backchannel', () => {
    const { bargeFrames, bargeConfirmFrames: c, bargeRecheckFrames: r, bargeBackchannelMaxFrames: max } = T;
    const asked = [];
    for (let f = c; f < max; f += r) asked.push({ frame: f, kind: 'long' });
    expect(overReply(60)).toEqual([{ frame: bargeFrames, kind: 'duck' }, ...asked, { frame: max, kind: 'barge' }]);
  });

  it('a burst that ends after the confirm is released for its words, as a short one is', () => {
    const d = overReply(T.bargeConfirmFrames + 3);
    expect(d.map((x) => x.kind)).toEqual(['duck', 'long', 'release']);
    expect(d.at(-1)!.frame).toBe(T.bargeConfirmFrames + 3 + T.bargeReleaseFrames);
  });

  it('with the longest backchannel at the confirm, the length alone interrupts (no reading)', () => {
    setTunable('engine.bargeBackchannelMaxFrames', T.bargeConfirmFrames);
    expect(overReply(60).map((x) => x.kind)).toEqual(['duck', 'barge']);
  });
});
