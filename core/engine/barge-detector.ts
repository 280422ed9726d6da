/**
 * Barge-in while the assistant talks. The mic hears the assistant too (capture is in the offscreen document,
 * playback in the side panel, so the browser's echo canceller may not see the far end), and Silero calls that echo
 * speech. So a barge needs VAD AND energy above what the echo alone would produce.
 *
 * The expected echo is estimated from the playback level the side panel reports: over the first few frames on which
 * playback is audible (never during the silent gap before the first audio — calibrating on silence made a peer
 * assistant interrupt itself), we learn the coupling mic/playback. Afterwards a frame is a barge candidate when
 * P(speech) > vadOn and mic RMS > max(bargeMinRms, bargeRatio × coupling × recent playback level).
 */
import { engineTunables } from '../tunables';
import { FRAME_MS } from './audio-frames';

export interface BargeDecision {
  fired: boolean;
  /** Clock time of the first frame of the qualifying run (the user's onset as the engine saw it). */
  onsetAt?: number;
}

export class BargeDetector {
  private levels: { at: number; rms: number }[] = [];
  private calibFrames = 0;
  private coupling = 0;
  private run = 0;
  private runStart = 0;

  /** A new reply: forget the previous calibration (volume or device may have changed). */
  reset(): void {
    this.levels = [];
    this.calibFrames = 0;
    this.coupling = 0;
    this.run = 0;
  }

  onPlaybackLevel(at: number, rms: number): void {
    this.levels.push({ at, rms });
    const horizon = at - Math.max(engineTunables.echoTailMs, FRAME_MS) - FRAME_MS;
    while (this.levels.length > 0 && this.levels[0]!.at < horizon) this.levels.shift();
  }

  /** Loudest playback within the echo tail: what may be arriving at the mic now. */
  expectedPlayback(now: number): number {
    let max = 0;
    const from = now - engineTunables.echoTailMs - FRAME_MS;
    for (const l of this.levels) if (l.at >= from && l.rms > max) max = l.rms;
    return max;
  }

  get calibrated(): boolean {
    return this.calibFrames >= engineTunables.echoCalibFrames;
  }

  /** Current energy threshold for a barge candidate. */
  threshold(now: number): number {
    const echo = this.coupling * this.expectedPlayback(now);
    return Math.max(engineTunables.bargeMinRms, engineTunables.bargeRatio * echo);
  }

  /** Feed one mic frame (time = end of frame). */
  onFrame(now: number, prob: number, micRms: number): BargeDecision {
    const playback = this.expectedPlayback(now);
    const audible = playback > engineTunables.playbackAudibleRms;
    if (audible && !this.calibrated) {
      this.coupling = Math.max(this.coupling, micRms / playback);
      this.calibFrames++;
      this.run = 0;
      return { fired: false };
    }
    const candidate = prob > engineTunables.vadOn && micRms > this.threshold(now);
    if (!candidate) {
      this.run = 0;
      return { fired: false };
    }
    if (this.run === 0) this.runStart = now - FRAME_MS;
    this.run++;
    if (this.run >= engineTunables.bargeFrames) {
      this.run = 0;
      return { fired: true, onsetAt: this.runStart };
    }
    return { fired: false };
  }
}
