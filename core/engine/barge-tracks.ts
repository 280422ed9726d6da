/**
 * Speech over the reply judged on both tracks of the one microphone (docs/echo.md, "Both tracks gate a barge-in"):
 * Chrome's canceller turns the user's voice down while the reply plays, so the processed track alone misses some
 * interruptions; the unprocessed track keeps the voice whole but carries the whole echo. Each track has its own gate
 * (barge-detector.ts: its own calibration, echo path and measured floor), and their decisions are merged here: either
 * one lowers the reply, either one interrupts it, and a burst is let go only once neither is still deciding on it.
 */
import { engineTunables as T } from '../tunables';
import { FRAME_MS } from './audio-frames';
import { BargeDetector, type BargeDecision } from './barge-detector';
import type { MicFrame, TurnStageFields } from './types';

const NONE: BargeDecision = { kind: 'none' };

/**
 * One frame's decision from two gates. `wasDeciding`: a duck was undecided on either track before this frame (the
 * reply is already lowered); `stillDeciding`: one is undecided after it (a release waits for the other).
 */
export function mergeBargeDecisions(
  a: BargeDecision,
  b: BargeDecision,
  wasDeciding: boolean,
  stillDeciding: boolean,
): BargeDecision {
  const barges = [a, b].filter((d) => d.kind === 'barge');
  if (barges.length > 0) return { kind: 'barge', onsetAt: Math.min(...barges.map((d) => d.onsetAt)) };
  // Either track's speech has lasted: its words are read (the engine reads one burst's words at a time).
  const long = [a, b].find((d) => d.kind === 'long');
  if (long) return long;
  const duck = [a, b].find((d) => d.kind === 'duck');
  if (duck) return wasDeciding ? NONE : duck;
  const release = [a, b].find((d) => d.kind === 'release');
  return release && !stillDeciding ? release : NONE;
}

/**
 * One track's barge gate, with what the other track's gate and the joint rule ask of it: whether its last frame was a
 * candidate, whether its floor still describes the room, whether a frame is over the echo this reply has sustained.
 */
export class TrackGate extends BargeDetector {
  /** `overEchoSoFar`'s level, held from the start of the other gate's run to its end. */
  private heldProvisional = 0;
  /** `floorStale`, held from the start of this gate's run to its end. */
  private heldStale = false;

  /**
   * This gate's floor describes the room: measured, and this reply's echo has sustained no more than the replies it
   * was measured on (`ResidualFloor.provisional`). Not so when the speakers got louder or the room changed, until
   * the floor has learned the new echo: a run both tracks heard then was the echo over two stale floors (docs/echo.md,
   * "Both tracks at once").
   */
  get floorHolds(): boolean {
    return this.residual.floor !== null && !this.residual.outgrownBy(1);
  }

  /**
   * This gate's floor was measured on replies whose echo this one's has outgrown by over `bargeStaleFloorRatio` (the
   * speakers turned up): judged before this frame, and held through a run, whose own frames would otherwise say so.
   */
  floorStale(): boolean {
    if (!this.inRun) this.heldStale = T.bargeStaleFloorRatio > 0 && this.residual.outgrownBy(T.bargeStaleFloorRatio);
    return this.heldStale;
  }

  /** The last frame fed was a barge candidate: voiced and over this gate. */
  get candidate(): boolean {
    return this.candidateNow;
  }

  /**
   * Both tracks' gates heard the same run (`JointRun`): the reply is held now, from `onsetAt`, without
   * waiting for this gate's own `bargeFrames`. Nothing when this gate is already deciding or not inside a run.
   */
  duckTogether(onsetAt: number): BargeDecision {
    if (this.tentative || this.run === 0) return NONE;
    return this.holdRun(onsetAt);
  }

  /** Inside a run of barge candidates, or deciding on one that lowered the reply. */
  get inRun(): boolean {
    return this.run > 0 || this.tentative !== null;
  }

  /**
   * This track's frame is louder than its floor would be if the reply ended now (`ResidualFloor.provisional`): asked of
   * the unprocessed gate before it has measured a floor, by the processed gate's candidates (docs/echo.md, "The first
   * reply in a loud room"). `held`: the asking gate is inside a run, so the level from before that run stands (the
   * run's own frames would otherwise lift it over the voice). `orFloor`: over this gate's measured floor too, when
   * that is higher (the reply right after a cut, whose echo has sustained little yet). Ask before this frame is fed.
   */
  overEchoSoFar(micRms: number, held: boolean, orFloor = false): boolean {
    if (!held) this.heldProvisional = this.residual.provisional;
    const floor = orFloor ? (this.residual.floor ?? 0) : 0;
    return micRms > Math.max(this.heldProvisional, floor);
  }
}

/**
 * A run of frames that both tracks' gates took for speech over the reply (docs/echo.md, "Both tracks at once"). The
 * echo rarely passes both at once: on the processed track the canceller has taken most of it out, on the unprocessed
 * one the floor stands at 2.5× what it sustains. So a run both heard holds the reply after `bargeJointFrames` frames,
 * before either gate's own `bargeFrames`.
 */
export class JointRun {
  private frames = 0;
  private startAt = 0;
  /** This reply's frames both gates took for speech, and the longest run they made (trace: how near the echo came). */
  private heard = 0;
  private longest = 0;

  /** One frame's candidacy on both tracks (`now`: its end): the run's onset once it has lasted long enough, else null. */
  frame(now: number, both: boolean): number | null {
    if (!both) {
      this.frames = 0;
      return null;
    }
    if (this.frames++ === 0) this.startAt = now - FRAME_MS;
    this.heard++;
    this.longest = Math.max(this.longest, this.frames);
    if (T.bargeJointFrames <= 0) return null;
    return this.frames >= T.bargeJointFrames ? this.startAt : null;
  }

  /** A new reply: no run, and its trace starts over. */
  reset(): void {
    this.frames = this.heard = this.longest = 0;
  }

  /** The `echo-path` mark's fields for this reply. */
  trace(): Pick<TurnStageFields['echo-path'], 'jointFrames' | 'jointLongestRun'> {
    return { jointFrames: this.heard, jointLongestRun: this.longest };
  }
}

/**
 * Whether this frame may be a candidate on each track, by what the other track's frame says (`rawRms`: the
 * unprocessed frame's level, when that track has its own gate).
 *
 * Before the unprocessed gate has a floor, the processed one stands at the fixed floor, which a lapsing canceller's
 * residual passes; and a gate whose floor the echo has outgrown (the speakers turned up) passes the louder echo. Its
 * candidates then also need the other track's frame over that track's echo so far (docs/echo.md, "The first reply in
 * a loud room", "The speakers turned up"). On the reply right after a cut the canceller re-converges: the unprocessed
 * frame must be over that track's floor ("The reply after an interruption"). And wherever that floor is measured, the
 * first frame of a processed run must be over it: the canceller lets bursts of the reply through the processed floor
 * while the room's echo stays under the other; not the run's later frames, nor once the reply is held, as a voice
 * dips under that floor between syllables ("A burst the canceller let through").
 */
export function crossCheckTracks(
  processed: TrackGate,
  rawGate: TrackGate,
  processedRms: number,
  rawRms: number | undefined,
): { confirmed: boolean; rawConfirmed: boolean } {
  // Both asked on every frame: each holds its answer from the start of its gate's run (floorStale).
  const processedStale = processed.floorStale();
  const rawStale = rawGate.floorStale();
  const rawConfirmed = !rawStale || processed.overEchoSoFar(processedRms, rawGate.inRun);
  if (rawRms === undefined) return { confirmed: true, rawConfirmed };
  const firstReply = T.bargeFirstReplyCrossCheck > 0 && rawGate.residual.floor === null;
  const afterCut = T.bargeAfterCutCrossCheck > 0 && processed.residual.followsCut;
  const crossCheck = firstReply || processedStale || afterCut;
  const crossChecked = !crossCheck || rawGate.overEchoSoFar(rawRms, processed.inRun, afterCut);
  const rawFloor = rawGate.residual.floor;
  // The run's first frame only: once it has begun over that floor, the voice's quieter syllables go on under it.
  const overRawFloor = T.bargeProcessedOverRawFloor <= 0 || rawFloor === null || processed.inRun || rawRms > rawFloor;
  return { confirmed: crossChecked && overRawFloor, rawConfirmed };
}

/**
 * The unprocessed twin as a second barge gate's input, where it is captured and asked for. `prob` is null where its
 * VAD was skipped (a feed behind real time): the frame still teaches that gate's echo path and floor, which on a
 * loaded machine otherwise saw too few frames of a reply to measure a floor at all, and the gate stayed mute.
 */
export function bargeTrack(frame: MicFrame): { rms: number; prob: number | null } | undefined {
  const raw = frame.raw;
  if (!T.bargeFromUnprocessed || !raw) return undefined;
  return { rms: raw.rms, prob: raw.prob ?? null };
}

/** The unprocessed track's gate over the reply, as the `echo-path` mark's fields. */
export function rawGateTrace(gate: BargeDetector): Partial<TurnStageFields['echo-path']> {
  const t = gate.replyTrace();
  return {
    rawPeakOverGate: t.peakOverGate,
    rawLongestRun: t.longestRun,
    rawVoicedUnderGateFrames: t.voicedUnderGateFrames,
    rawResidualRunRms: t.residualRunRms,
    rawResidualRank2Rms: t.residualRank2Rms,
    rawResidualRank4Rms: t.residualRank4Rms,
    rawFloorRms: t.floorRms,
  };
}
