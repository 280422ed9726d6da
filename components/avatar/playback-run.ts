/**
 * One run of the player's audio: from the first chunk queued after an end to the next end (drained or cut). The
 * engine needs exactly one `started` per run; without it the reply never counts as playing, and the microphone
 * frames during it are judged as a user resuming before any audio (docs/echo.md, "A start the player lost").
 *
 * TalkingHead's worklet says `playback-started` when it leaves idle. That message can still be on its way when the
 * reply is cut (the worklet had drained and a chunk woke it just before the stop): it then arrives after the run
 * ended. Taken as a start, it marked the *next* run as started before its audio existed, and that run's real start
 * was dropped as a repeat.
 */
export type WorkletStart = 'report' | 'repeat' | 'stale';

export class PlaybackRun {
  private playing = false;
  private started = false;

  get isPlaying(): boolean {
    return this.playing;
  }

  /** A chunk went to the worklet. */
  queued(): void {
    this.playing = true;
  }

  /** The worklet left idle: the run's start (`report`), a second start of the same run, or a start from before the last end. */
  workletStarted(): WorkletStart {
    if (!this.playing) return 'stale';
    if (this.started) return 'repeat';
    this.started = true;
    return 'report';
  }

  /** The run drained or was cut; false when there was no run to end (nothing to report). */
  end(): boolean {
    if (!this.playing) return false;
    this.playing = false;
    this.started = false;
    return true;
  }
}
