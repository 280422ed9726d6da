/**
 * Follows the user's speech frame by frame: onset with hysteresis (on > vadOn for `onsetFrames` frames, off below
 * vadOff), trailing silence, voiced-frame count for the phantom guard, and the utterance audio with its pre-roll.
 * It reports facts; the engine decides what to do with them.
 */
import { engineTunables } from '../tunables';
import { FRAME_MS, FrameRing, concatFrames } from './audio-frames';

export type TrackerEvent =
  | { kind: 'none' }
  | { kind: 'onset'; at: number }
  /** Speech fell below vadOff; `at` is the start of the first silent frame (end of speech). */
  | { kind: 'silence'; at: number }
  /** Speech came back after a silence. */
  | { kind: 'resume'; at: number };

export class UtteranceTracker {
  private readonly ring: FrameRing;
  private frames: Float32Array[] = [];
  private onsetRun = 0;
  private resumeRun = 0;
  inSpeech = false;
  speechStart = 0;
  /** Start of the current trailing silence, or null while speaking. */
  silenceStart: number | null = null;
  voicedFrames = 0;
  /** Last time a frame had P(speech) > vadOn. */
  lastVoiceAt = -Infinity;

  constructor() {
    this.ring = new FrameRing(Math.ceil(Math.max(engineTunables.preRollMs, engineTunables.bargePreRollMs) / FRAME_MS) + 2);
  }

  /** Time of silence so far (0 while speaking). */
  silenceMs(now: number): number {
    return this.silenceStart === null ? 0 : now - this.silenceStart;
  }

  /** Utterance length from onset to end of speech (or now). */
  speechMs(now: number): number {
    return (this.silenceStart ?? now) - this.speechStart;
  }

  audio(): Float32Array {
    return concatFrames(this.frames);
  }

  get frameCount(): number {
    return this.frames.length;
  }

  /** Feed a frame; `now` is the end of the frame. */
  onFrame(now: number, pcm: Float32Array, prob: number): TrackerEvent {
    const frameStart = now - FRAME_MS;
    this.ring.push(pcm);
    if (prob > engineTunables.vadOn) this.lastVoiceAt = now;
    if (!this.inSpeech) {
      this.onsetRun = prob > engineTunables.vadOn ? this.onsetRun + 1 : 0;
      if (this.onsetRun < engineTunables.onsetFrames) return { kind: 'none' };
      const preRollFrames = Math.round(engineTunables.preRollMs / FRAME_MS);
      this.startUtterance(frameStart - (this.onsetRun - 1) * FRAME_MS, this.onsetRun + preRollFrames, this.onsetRun);
      return { kind: 'onset', at: this.speechStart };
    }
    this.frames.push(pcm);
    if (prob > engineTunables.vadOn) this.voicedFrames++;
    if (this.silenceStart === null) {
      if (prob < engineTunables.vadOff) {
        this.silenceStart = frameStart;
        this.resumeRun = 0;
        return { kind: 'silence', at: frameStart };
      }
      return { kind: 'none' };
    }
    // In a trailing silence: coming back needs the onset condition again (hysteresis).
    this.resumeRun = prob > engineTunables.vadOn ? this.resumeRun + 1 : 0;
    if (this.resumeRun >= engineTunables.onsetFrames) {
      this.silenceStart = null;
      this.resumeRun = 0;
      return { kind: 'resume', at: frameStart - (engineTunables.onsetFrames - 1) * FRAME_MS };
    }
    return { kind: 'none' };
  }

  /**
   * Opens an utterance whose audio starts with the last `frameCount` frames of the ring (pre-roll + onset frames).
   * Used for a normal onset and for a barge-in, whose pre-roll is longer.
   */
  startUtterance(speechStart: number, frameCount: number, voiced: number): void {
    this.inSpeech = true;
    this.speechStart = speechStart;
    this.silenceStart = null;
    this.voicedFrames = voiced;
    this.frames = this.ring.last(frameCount);
    this.onsetRun = 0;
    this.resumeRun = 0;
  }

  /** Keep a frame as pre-roll without tracking speech (while the assistant talks, or in the echo tail). */
  observe(pcm: Float32Array): void {
    this.ring.push(pcm);
    this.onsetRun = 0;
  }

  /** The last `count` frames heard (observed or tracked), as one buffer: e.g. a burst of speech over the reply. */
  recent(count: number): Float32Array {
    return concatFrames(this.ring.last(count));
  }

  /** Hands the utterance audio over (at commit) and starts afresh. */
  takeFrames(): Float32Array[] {
    const frames = this.frames;
    this.frames = [];
    return frames;
  }

  /**
   * Continuation-merge: the committed utterance, the gap and the new speech become one utterance again, so ASR
   * hears both halves together and the next endpoint answers them as one turn.
   */
  adopt(frames: Float32Array[], speechStart: number, voiced: number): void {
    this.inSpeech = true;
    this.frames = frames;
    this.speechStart = speechStart;
    this.voicedFrames = voiced;
    this.silenceStart = null;
    this.resumeRun = 0;
  }

  reset(): void {
    this.inSpeech = false;
    this.frames = [];
    this.silenceStart = null;
    this.voicedFrames = 0;
    this.onsetRun = 0;
    this.resumeRun = 0;
  }
}
