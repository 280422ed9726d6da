/**
 * How many of a sentence's first frames to hold before playback starts, so that a voice generated slower than real
 * time does not stall mid-sentence (docs/tts.md, "Jitter buffer"). Playback starts on the first frame whenever the
 * voice keeps up; otherwise, with r frames generated per second against R played, frame k is ready at k/r and needed
 * at D + k/R, so a sentence of N frames plays without a gap when the start waits D = N (1/r − 1/R). The wait is capped
 * (a late start is worse than a short gap on a very slow machine) and the rate is learned from the sentences so far.
 * Pure: the offscreen document feeds it frames with their arrival times.
 */
import { ttsTunables } from '../tunables';

/** 80 ms frames: 12.5 per second of audio. */
export const FRAMES_PER_SECOND = 12.5;

/** Seconds a sentence takes to say, from its text: ~150 words a minute, the pace the voices speak at. */
export function expectedSpeechSeconds(text: string): number {
  const words = text.trim().split(/\s+/).filter(Boolean).length;
  return words / 2.5;
}

/** Frames to hold before the first one plays: 0 when generation keeps up with playback. */
export function holdFrames(speechSeconds: number, framesPerSecond: number | null, maxHoldMs: number): number {
  if (framesPerSecond === null || framesPerSecond >= FRAMES_PER_SECOND) return 0;
  const n = speechSeconds * FRAMES_PER_SECOND;
  const waitS = Math.min(maxHoldMs / 1000, n * (1 / framesPerSecond - 1 / FRAMES_PER_SECOND));
  // Playback starts when the last held frame arrives, (hold − 1) frame times after the first.
  return waitS > 0 ? Math.ceil(waitS * framesPerSecond) + 1 : 0;
}

/**
 * One sentence's frames: held until `holdFrames` have arrived, then passed through. `finish()` releases what is held
 * when the sentence ends first. The generation rate it measures (frames after the first, per second of arrival) is
 * kept by `GenerationRate` across sentences.
 */
export class SentenceJitterBuffer<F> {
  private held: F[] = [];
  private open: boolean;

  constructor(
    private readonly hold: number,
    private readonly release: (frame: F) => void,
  ) {
    this.open = hold <= 1;
  }

  push(frame: F): void {
    if (this.open) return this.release(frame);
    this.held.push(frame);
    if (this.held.length >= this.hold) this.finish();
  }

  finish(): void {
    this.open = true;
    const held = this.held;
    this.held = [];
    for (const f of held) this.release(f);
  }
}

/** Frames generated per second, a running average over sentences (frames after each sentence's first). */
export class GenerationRate {
  private rate: number | null = null;
  private firstAt: number | null = null;
  private frames = 0;

  get framesPerSecond(): number | null {
    return this.rate;
  }

  /** A frame of the current sentence arrived at `at` (ms). */
  frame(at: number): void {
    if (this.firstAt === null) this.firstAt = at;
    else this.frames++;
    const spanS = (at - this.firstAt) / 1000;
    if (this.frames >= ttsTunables.jitterRateMinFrames && spanS > 0) {
      const r = this.frames / spanS;
      // The newest sentence counts for half: machines change speed (thermal, another tab), and fast.
      this.rate = this.rate === null ? r : (this.rate + r) / 2;
      this.firstAt = at;
      this.frames = 0;
    }
  }

  /** The sentence ended: the next one's first frame starts a new span. */
  endSentence(): void {
    this.firstAt = null;
    this.frames = 0;
  }
}
