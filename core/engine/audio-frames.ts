/**
 * The engine's audio unit: 16 kHz frames of 512 samples (32 ms), what Silero v5 takes. The microphone worklet
 * (models/audio/mic-capture.ts) delivers frames of this size.
 */

export const VAD_SAMPLE_RATE = 16000;
export const FRAME_SAMPLES = 512;
export const FRAME_MS = (FRAME_SAMPLES / VAD_SAMPLE_RATE) * 1000; // 32

/** Root mean square of a block, the engine's "level". */
export function rms(samples: Float32Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    sum += s * s;
  }
  return Math.sqrt(sum / samples.length);
}

/** Bounded FIFO of recent frames (pre-roll): keeps the last `capacity` frames. */
export class FrameRing {
  private frames: Float32Array[] = [];

  constructor(private capacity: number) {}

  push(frame: Float32Array): void {
    this.frames.push(frame);
    if (this.frames.length > this.capacity) this.frames.shift();
  }

  /** The last `count` frames, oldest first. */
  last(count: number): Float32Array[] {
    return count <= 0 ? [] : this.frames.slice(-count);
  }

  resize(capacity: number): void {
    this.capacity = capacity;
    while (this.frames.length > capacity) this.frames.shift();
  }
}

export function concatFrames(frames: readonly Float32Array[]): Float32Array {
  let total = 0;
  for (const f of frames) total += f.length;
  const out = new Float32Array(total);
  let offset = 0;
  for (const f of frames) {
    out.set(f, offset);
    offset += f.length;
  }
  return out;
}
