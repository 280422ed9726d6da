/**
 * The barge gate's floor, measured instead of guessed (docs/echo.md, "The measured floor").
 *
 * What Chrome's echo canceller leaves of a reply differs from room to room by two orders of magnitude: the room rig
 * measured residual peaks of 2e-4 RMS with the speakers 30 dB under the user and 0.03–0.06 at 10 dB under, and the
 * VAD calls that residual speech most of the time. A fixed floor (`bargeMinRms`, 0.02) is then too high in the quiet
 * room (a voice that the canceller turns down in double talk stays under it) and too low in the loud one (the
 * residual made onset runs one frame short of a false duck).
 *
 * So each reply measures the level its echo sustained over an onset run: the highest level at which `bargeFrames`
 * frames in a row were voiced and at least that loud (the gate at which that reply would have ducked itself), but no
 * more than `residualPeakOverRank` times the level of its `residualWindowRank`-th loudest window of
 * `residualWindowFrames`. An echo that grew (the volume turned up) is loud across the reply; a voice the gates missed
 * lasts a phrase, a few windows, and learned at its level it would lift the floor over every later interruption
 * (docs/echo.md, "A missed voice"). Speech
 * that ducked the reply is held apart until it is decided: when it interrupts, it was the user, and nothing from its
 * start on is learned; when it is released as the reply's own echo (its audio or its words), it counts. So a room that
 * got louder (the volume turned up), whose echo now ducks the reply, is learned from that echo instead of never. A
 * listener's "mm-hm" released as a backchannel is the user's voice, and is not. The floor is `bargeResidualMargin`
 * times the largest of the last `residualReplies` levels, never under `bargeLearnedMinRms`. Until one reply has been
 * measured the fixed floor stands.
 */
import { engineTunables } from '../tunables';

/** How far back (frames) an interruption from the other track can undo this one's measurement: 2 s. */
const ROLLBACK_FRAMES = 64;

export class ResidualFloor {
  /** RMS of the newest run of consecutive voiced frames, at most `bargeFrames` long. */
  private voicedRun: number[] = [];
  /** This reply's frames, and the highest level its echo sustained over an onset run. */
  private frames = 0;
  private runLevel = 0;
  /** The level sustained over the onset run ending at each learned frame of this reply (0: none); one per frame. */
  private sustainedAt: number[] = [];
  /** Where the frames held apart while a duck is undecided begin. */
  private pendingFrom = 0;
  /** The level before the current run of barge candidates began, and the same since (while a duck is undecided). */
  private levelBeforeRun = 0;
  private framesBeforeRun = 0;
  private pendingLevel = 0;
  /** 'pending': speech ducked the reply and is not decided; 'closed': it interrupted, the rest is not learned from. */
  private mode: 'open' | 'pending' | 'closed' = 'open';
  /**
   * The last replies measured, oldest first: each one's level (`learnedLevel`, the floor's) and the loudest level it
   * sustained anywhere (`peak`, what `provisional` is compared with).
   */
  private levels: { level: number; peak: number }[] = [];
  /** The reply before this one was cut by speech over it (`interrupted`): the canceller re-converges on this one. */
  private afterCut = false;
  /** What was measured before each of the newest frames (newest last): undone when the other track interrupts. */
  private before: { frames: number; runLevel: number }[] = [];

  /**
   * `behindCanceller`: this track comes out of the browser's echo canceller, whose residual on the reply right after
   * a cut is the canceller re-converging, not the room: that reply is not learned (docs/echo.md, "The reply after an
   * interruption").
   */
  constructor(private readonly behindCanceller = false) {}

  /**
   * One microphone frame while the reply plays. `judged` false: its VAD was skipped (barge-detector.ts), and it is
   * taken as voiced for the floor this reply leaves, but not for what its echo has sustained so far (`provisional`,
   * what the cross-checks read while the reply plays): an interruption nobody has heard yet would be taken for echo.
   */
  onFrame(voiced: boolean, micRms: number, judged = true): void {
    if (this.mode === 'closed') return;
    this.before.push({ frames: this.frames, runLevel: this.runLevel });
    if (this.before.length > ROLLBACK_FRAMES) this.before.shift();
    this.frames++;
    this.sustainedAt.push(0);
    if (!voiced) {
      this.voicedRun = [];
      return;
    }
    this.voicedRun.push(micRms);
    const need = engineTunables.bargeFrames;
    if (this.voicedRun.length > need) this.voicedRun.shift();
    if (this.voicedRun.length < need) return;
    const sustained = Math.min(...this.voicedRun);
    this.sustainedAt[this.frames - 1] = sustained;
    if (!judged) return;
    if (this.mode === 'open') this.runLevel = Math.max(this.runLevel, sustained);
    else this.pendingLevel = Math.max(this.pendingLevel, sustained);
  }

  /** A run of barge candidates begins with the frame just fed: remember what was measured before it. */
  runStarted(): void {
    if (this.mode !== 'open') return;
    this.levelBeforeRun = this.runLevel;
    this.framesBeforeRun = this.frames - 1;
  }

  /** That run ducked the reply: held apart until it is decided. */
  ducked(): void {
    if (this.mode !== 'open') return;
    this.mode = 'pending';
    this.pendingFrom = this.framesBeforeRun;
    this.pendingLevel = this.runLevel;
    this.runLevel = this.levelBeforeRun;
  }

  /**
   * The speech that ducked the reply was not the user asking for the floor. `echo`: it was the reply's own echo, and
   * counts; a listener's "mm-hm" was the user's voice, and is forgotten (it would lift the floor over the voice).
   */
  released(echo: boolean): void {
    if (this.mode !== 'pending') return;
    this.mode = 'open';
    if (echo) this.runLevel = Math.max(this.runLevel, this.pendingLevel);
    else this.sustainedAt.fill(0, this.pendingFrom);
  }

  /**
   * It interrupted the reply: it was the user, and so may be everything after it. `sinceFrames`: the speech began that
   * many frames ago without ducking through this floor's track (the other track heard it first), so what this track
   * measured since is the user's voice, not the echo, and is undone.
   */
  interrupted(sinceFrames = 0): void {
    if (this.mode === 'pending') this.frames = this.framesBeforeRun;
    else if (this.mode === 'open' && sinceFrames > 0 && this.before.length > 0) {
      const at = this.before[Math.max(0, this.before.length - sinceFrames)]!;
      this.frames = at.frames;
      this.runLevel = at.runLevel;
    }
    this.sustainedAt.length = this.frames;
    this.mode = 'closed';
  }

  /** The reply is over (the next one begins): learn from it if it played long enough before anyone interrupted it. */
  endReply(): void {
    const { residualMinFrames, residualReplies, bargeAfterCutCrossCheck } = engineTunables;
    const reconverging = this.behindCanceller && this.afterCut && bargeAfterCutCrossCheck > 0;
    if (this.frames >= residualMinFrames && !reconverging) {
      this.levels.push({ level: this.learnedLevel(), peak: this.runLevel });
      while (this.levels.length > residualReplies) this.levels.shift();
    }
    // A turn that played nothing (merged, cancelled before its audio) leaves it as it was.
    if (this.mode === 'closed') this.afterCut = true;
    else if (this.frames > 0) this.afterCut = false;
    this.voicedRun = [];
    this.before = [];
    this.sustainedAt = [];
    this.frames = 0;
    this.runLevel = this.levelBeforeRun = this.pendingLevel = this.framesBeforeRun = this.pendingFrom = 0;
    this.mode = 'open';
  }

  /**
   * This reply's level: the loudest level it sustained, but at most `residualPeakOverRank` times its
   * `residualWindowRank`-th loudest window's, setting aside at most half of a short reply's windows (a reply too short
   * to tell a phrase from the echo keeps its loudest level). Rank 1 is the loudest level anywhere in the reply.
   */
  private learnedLevel(): number {
    const windows = this.windowLevels;
    const { residualWindowRank, residualPeakOverRank } = engineTunables;
    const ranked = windows[Math.min(residualWindowRank, Math.ceil(windows.length / 2)) - 1] ?? 0;
    return Math.min(windows[0] ?? 0, residualPeakOverRank * ranked);
  }

  /** This reply's windows' sustained levels so far, loudest first (trace, and the learned level). */
  get windowLevels(): number[] {
    const { residualWindowFrames } = engineTunables;
    const windows: number[] = [];
    for (let from = 0; from < this.sustainedAt.length; from += residualWindowFrames)
      windows.push(Math.max(...this.sustainedAt.slice(from, from + residualWindowFrames)));
    return windows.sort((a, b) => b - a);
  }

  /** The learned floor, or null until a reply has been measured. */
  get floor(): number | null {
    return this.marginOver((l) => l.level);
  }

  /** `bargeResidualMargin` times the largest of the measured replies' `level` or `peak`, never under the minimum. */
  private marginOver(level: (l: { level: number; peak: number }) => number): number | null {
    if (this.levels.length === 0) return null;
    const { bargeResidualMargin, bargeLearnedMinRms } = engineTunables;
    return Math.max(bargeLearnedMinRms, bargeResidualMargin * Math.max(...this.levels.map(level)));
  }

  /**
   * What this reply's echo has sustained so far, times the margin (never under `bargeLearnedMinRms`): the floor this
   * reply would leave if it ended now. While no floor is measured, the other track's gate asks it (barge-detector.ts,
   * `overEchoSoFar`).
   */
  get provisional(): number {
    const { bargeResidualMargin, bargeLearnedMinRms } = engineTunables;
    return Math.max(bargeLearnedMinRms, bargeResidualMargin * this.runLevel);
  }

  /**
   * This reply's echo has sustained more than `ratio` times the level the floor was measured at: the floor no longer
   * describes the room. Loudest level against loudest level (`provisional` over `ratio` × the same margin over the
   * measured replies' peaks): a reply's loudest level is often over its learned one. False while none is measured.
   */
  outgrownBy(ratio: number): boolean {
    return this.outgrowth > ratio;
  }

  /** How many times the level the floor was measured at this reply's echo has sustained (`outgrownBy`); −1 while none. */
  get outgrowth(): number {
    const floor = this.marginOver((l) => l.peak);
    return floor === null ? -1 : this.provisional / floor;
  }

  /** Speech over the last reply cut it (docs/echo.md, "The reply after an interruption"). */
  get followsCut(): boolean {
    return this.afterCut;
  }

  /** This reply's level so far (trace). */
  get replyRunLevel(): number {
    return this.runLevel;
  }
}
