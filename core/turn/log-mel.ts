/**
 * Whisper's log-mel spectrogram, as Smart Turn's upstream inference computes it for its 8 s window (docs/models.md §
 * Smart Turn): periodic Hann window of 400, hop 160, centred frames with reflect padding, power spectrum, 80 Slaney
 * mel bands over 0–8 kHz with Slaney area normalisation, log10 with a 1e-10 floor, the last frame dropped, values
 * clamped to (max − 8) and mapped by (x + 4) / 4. Output is band-major: [80][frames].
 *
 * Written for speed in a worker: a mixed-radix FFT (400 = 4·4·5·5) that transforms two real frames at once, and
 * sparse mel filters. Checked against transformers.js's WhisperFeatureExtractor in tests/unit/models/log-mel.test.ts.
 */
import { MixedRadixFft } from './fft';

const N_FFT = 400;
const HOP = 160;
const BINS = N_FFT / 2 + 1;
const MELS = 80;
const SAMPLE_RATE = 16_000;
const FLOOR = 1e-10;

function hzToMel(hz: number): number {
  const minLogHz = 1000;
  const logStep = 27 / Math.log(6.4);
  return hz < minLogHz ? (3 * hz) / 200 : 15 + Math.log(hz / minLogHz) * logStep;
}

function melToHz(mel: number): number {
  const logStep = Math.log(6.4) / 27;
  return mel < 15 ? (200 * mel) / 3 : 1000 * Math.exp(logStep * (mel - 15));
}

/** Slaney-scale triangular filters with Slaney area normalisation, stored sparsely: first bin and weights. */
function melFilters(): { start: number; weights: Float64Array }[] {
  const melMax = hzToMel(SAMPLE_RATE / 2);
  const points = Array.from({ length: MELS + 2 }, (_, i) => melToHz((melMax * i) / (MELS + 1)));
  const binHz = Array.from({ length: BINS }, (_, k) => (k * SAMPLE_RATE) / N_FFT);
  return Array.from({ length: MELS }, (_, m) => {
    const [lo, mid, hi] = [points[m]!, points[m + 1]!, points[m + 2]!];
    const norm = 2 / (hi - lo);
    const w = binHz.map((f) => Math.max(0, Math.min((f - lo) / (mid - lo), (hi - f) / (hi - mid))) * norm);
    const start = w.findIndex((v) => v > 0);
    const end = w.length - [...w].reverse().findIndex((v) => v > 0);
    return start < 0 ? { start: 0, weights: new Float64Array(0) } : { start, weights: Float64Array.from(w.slice(start, end)) };
  });
}

export class WhisperLogMel {
  private readonly fft = new MixedRadixFft(N_FFT);
  private readonly window = Float64Array.from({ length: N_FFT }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / N_FFT));
  private readonly filters = melFilters();
  private readonly re = new Float64Array(N_FFT);
  private readonly im = new Float64Array(N_FFT);

  /** Frames in the output for `samples` of audio (Whisper drops the last of 1 + samples / hop). */
  static frames(samples: number): number {
    return Math.floor(samples / HOP);
  }

  /** Band-major [80 × frames] features of `audio`. */
  compute(audio: Float32Array): Float32Array {
    const frames = WhisperLogMel.frames(audio.length);
    const out = new Float32Array(MELS * frames);
    const power = new Float64Array(BINS);
    const powerB = new Float64Array(BINS);
    let max = -Infinity;
    // A short turn's window starts with one repeated value (the zeros in front, normalised): every frame that lies
    // wholly inside it is the same, so it is computed once and copied.
    let lead = 0;
    while (lead < audio.length && audio[lead] === audio[0]) lead++;
    const same = lead >= N_FFT ? Math.min(frames, Math.floor((lead - N_FFT / 2) / HOP) + 1) : 0;
    let t0 = 0;
    if (same > 1) {
      this.load(audio, 0, this.re);
      this.im.fill(0);
      this.fft.transform(this.re, this.im);
      for (let k = 0; k < BINS; k++) power[k] = this.re[k]! ** 2 + this.im[k]! ** 2;
      max = this.mel(power, out, 0, frames);
      for (let m = 0; m < MELS; m++) out.fill(out[m * frames]!, m * frames + 1, m * frames + same);
      t0 = same;
    }
    for (let t = t0; t < frames; t += 2) {
      // Two real frames per complex FFT: frame t in the real part, frame t + 1 in the imaginary part.
      const pair = t + 1 < frames;
      this.load(audio, t, this.re);
      if (pair) this.load(audio, t + 1, this.im);
      else this.im.fill(0);
      this.fft.transform(this.re, this.im);
      for (let k = 0; k < BINS; k++) {
        const nk = (N_FFT - k) % N_FFT;
        const zr = this.re[k]!;
        const zi = this.im[k]!;
        const cr = this.re[nk]!;
        const ci = -this.im[nk]!;
        const ar = (zr + cr) / 2;
        const ai = (zi + ci) / 2;
        const br = (zi - ci) / 2;
        const bi = (cr - zr) / 2;
        power[k] = ar * ar + ai * ai;
        powerB[k] = br * br + bi * bi;
      }
      max = Math.max(max, this.mel(power, out, t, frames));
      if (pair) max = Math.max(max, this.mel(powerB, out, t + 1, frames));
    }
    const floor = max - 8;
    for (let i = 0; i < out.length; i++) out[i] = (Math.max(out[i]!, floor) + 4) / 4;
    return out;
  }

  /** Frame `t`, centred (reflect padding at the edges) and windowed, into `dst`. */
  private load(audio: Float32Array, t: number, dst: Float64Array): void {
    const n = audio.length;
    const origin = t * HOP - N_FFT / 2;
    for (let i = 0; i < N_FFT; i++) {
      let at = origin + i;
      if (at < 0) at = -at;
      else if (at >= n) at = 2 * (n - 1) - at;
      dst[i] = audio[at]! * this.window[i]!;
    }
  }

  /** log10 mel energies of one frame into column `t`; returns the frame's maximum. */
  private mel(power: Float64Array, out: Float32Array, t: number, frames: number): number {
    let max = -Infinity;
    for (let m = 0; m < MELS; m++) {
      const { start, weights } = this.filters[m]!;
      let e = 0;
      for (let j = 0; j < weights.length; j++) e += weights[j]! * power[start + j]!;
      const v = Math.log10(Math.max(FLOOR, e));
      out[m * frames + t] = v;
      if (v > max) max = v;
    }
    return max;
  }
}
