/**
 * Microphone audio → 16 kHz frames of 512 samples (32 ms), the unit Silero v5 and the engine work in.
 * Capture usually runs at 48 kHz (or 44.1 kHz); the resampler low-passes before decimating so speech energy above
 * 8 kHz does not alias into the band the VAD and ASR listen to.
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

/**
 * Streaming resampler to 16 kHz: a windowed-sinc low-pass (cut-off just under 8 kHz) evaluated at fractional
 * positions, with history carried between calls so block boundaries are seamless. Works for any input rate ≥ 16 kHz
 * (48 kHz → exact 3:1, 44.1 kHz → fractional).
 */
export class Resampler16k {
  private readonly step: number;
  private readonly halfTaps = 16;
  private readonly cutoff: number;
  private history = new Float32Array(0);
  /** Position of the next output sample, in input samples relative to the start of `history`. */
  private position: number;

  constructor(readonly inputRate: number) {
    if (inputRate < VAD_SAMPLE_RATE) throw new Error(`resampler needs ≥ 16 kHz input, got ${inputRate}`);
    this.step = inputRate / VAD_SAMPLE_RATE;
    this.cutoff = 0.45 / this.step; // normalised to the input rate, a little under Nyquist of the output
    this.position = this.halfTaps;
    if (inputRate === VAD_SAMPLE_RATE) this.position = 0;
  }

  process(input: Float32Array): Float32Array {
    if (this.step === 1) return input.slice();
    const buf = new Float32Array(this.history.length + input.length);
    buf.set(this.history);
    buf.set(input, this.history.length);
    const out: number[] = [];
    while (this.position + this.halfTaps < buf.length) {
      out.push(this.sampleAt(buf, this.position));
      this.position += this.step;
    }
    // Keep what the next call's first outputs still need.
    const keepFrom = Math.max(0, Math.floor(this.position) - this.halfTaps);
    this.history = buf.slice(keepFrom);
    this.position -= keepFrom;
    return Float32Array.from(out);
  }

  private sampleAt(buf: Float32Array, pos: number): number {
    const center = Math.floor(pos);
    const frac = pos - center;
    let acc = 0;
    let norm = 0;
    for (let k = -this.halfTaps + 1; k <= this.halfTaps; k++) {
      const x = k - frac;
      const sinc = x === 0 ? 2 * this.cutoff : Math.sin(2 * Math.PI * this.cutoff * x) / (Math.PI * x);
      const window = 0.5 + 0.5 * Math.cos((Math.PI * x) / this.halfTaps); // Hann
      const w = sinc * window;
      acc += (buf[center + k] ?? 0) * w;
      norm += w;
    }
    return norm !== 0 ? acc / norm : 0;
  }
}

/** Collects arbitrary-size blocks into 512-sample frames. */
export class Framer {
  private pending = new Float32Array(0);

  push(samples: Float32Array): Float32Array[] {
    const buf = new Float32Array(this.pending.length + samples.length);
    buf.set(this.pending);
    buf.set(samples, this.pending.length);
    const frames: Float32Array[] = [];
    let offset = 0;
    while (offset + FRAME_SAMPLES <= buf.length) {
      frames.push(buf.slice(offset, offset + FRAME_SAMPLES));
      offset += FRAME_SAMPLES;
    }
    this.pending = buf.slice(offset);
    return frames;
  }

  reset(): void {
    this.pending = new Float32Array(0);
  }
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
