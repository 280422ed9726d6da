/**
 * One run of the player's audio: from the first chunk queued after an end to the next end (drained or cut). The
 * engine needs one `started` per run: it keeps the turn's audio outstanding until the run's end, and without any the
 * reply never counts as playing, so the microphone frames during it are judged as a user resuming before any audio
 * (docs/echo.md, "A start the player lost").
 *
 * TalkingHead's worklet says `playback-started` when it leaves idle, which it can do twice around one end:
 * - after a **cut**, a start still on its way (the worklet had drained and a chunk woke it just before the stop) is
 *   stale: taken as a start, it marked the next reply as started before its audio existed, and that reply's real start
 *   was then dropped as a repeat;
 * - after a **drain**, a start that arrives with nothing queued since is a new run all the same: a chunk sent before
 *   the drain's report was read woke the worklet again, and it plays.
 */
export type WorkletStart = 'report' | 'repeat' | 'stale';

export class PlaybackRun {
  private playing = false;
  private started = false;
  private lastEndCut = false;

  get isPlaying(): boolean {
    return this.playing;
  }

  /** A chunk went to the worklet. */
  queued(): void {
    this.playing = true;
  }

  /** The worklet left idle: the run's start (`report`), a second start of the same run, or a start from before a cut. */
  workletStarted(): WorkletStart {
    if (!this.playing) {
      if (this.lastEndCut) return 'stale';
      this.playing = true; // woken by a chunk queued before the drain was reported
    }
    if (this.started) return 'repeat';
    this.started = true;
    return 'report';
  }

  /** The run drained (`cut` false) or was cut; false when there was no run to end (nothing to report). */
  end(cut: boolean): boolean {
    if (!this.playing) return false;
    this.playing = false;
    this.started = false;
    this.lastEndCut = cut;
    return true;
  }
}
