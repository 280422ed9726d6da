/** Levels of recorded audio (48 kHz mono float), shared by the room's tests and its benchmark. */
import { RIG_RATE } from './rig';

export function rms(s: Float32Array): number {
  let sum = 0;
  for (const x of s) sum += x * x;
  return s.length ? Math.sqrt(sum / s.length) : 0;
}

/** Mean square of each whole `windowMs` window of `s`, in order. */
export function windowPower(s: Float32Array, windowMs: number): number[] {
  const w = Math.round((RIG_RATE * windowMs) / 1000);
  const levels: number[] = [];
  for (let i = 0; i + w <= s.length; i += w) {
    let sum = 0;
    for (let j = i; j < i + w; j++) sum += s[j]! * s[j]!;
    levels.push(sum / w);
  }
  return levels;
}

/** RMS over the 20 ms windows within 40 dB of the loudest: the level of the speech, not of its pauses. */
export function activeRms(s: Float32Array): number {
  const levels = windowPower(s, 20);
  const peak = Math.max(0, ...levels);
  const active = levels.filter((l) => l > peak * 1e-4);
  return active.length ? Math.sqrt(active.reduce((a, b) => a + b, 0) / active.length) : 0;
}

/**
 * Where the last `windowMs` window at or above `floor` RMS ends (a sample index; 0 if none is). From a voice's onset,
 * that is when the reply was lowered for good: natural pauses between words do not count, since speech comes back
 * loud after them unless the reply was ducked or cut.
 */
export function endOfLastLoud(s: Float32Array, floor: number, windowMs = 50): number {
  const w = Math.round((RIG_RATE * windowMs) / 1000);
  const levels = windowPower(s, windowMs);
  for (let k = levels.length - 1; k >= 0; k--) if (Math.sqrt(levels[k]!) >= floor) return (k + 1) * w;
  return 0;
}

/** 48 kHz → 8 kHz by averaging each six samples (enough of a low-pass to find a voice by its waveform). */
function to8k(s: Float32Array): Float32Array {
  const out = new Float32Array(Math.floor(s.length / 6));
  for (let i = 0; i < out.length; i++) {
    let sum = 0;
    for (let j = 0; j < 6; j++) sum += s[i * 6 + j]!;
    out[i] = sum / 6;
  }
  return out;
}

/**
 * Where `template` (a known sound, e.g. the user's phrase) lies in the recording `s`, as a sample index of `s`: the
 * lag of the largest normalised cross-correlation at 8 kHz. Other sound in the recording (the reply's echo) does not
 * correlate with it. -1 when no lag reaches `minCorrelation`.
 */
export function findTemplate(s: Float32Array, template: Float32Array, minCorrelation = 0.5): number {
  const m = bestMatch(s, template);
  return m.correlation >= minCorrelation ? m.index : -1;
}

/**
 * The best normalised cross-correlation of `template` in `s` at 8 kHz, and where (a sample index of `s`); with
 * `earliestWithin` under 1, the earliest local peak at least that share of the best instead.
 */
export function bestMatch(s: Float32Array, template: Float32Array, earliestWithin = 1): { index: number; correlation: number } {
  const x = to8k(s);
  const t = to8k(template);
  const n = t.length;
  if (n === 0 || x.length < n) return { index: -1, correlation: 0 };
  const tNorm = Math.sqrt(t.reduce((a, v) => a + v * v, 0));
  const energy = new Float64Array(x.length + 1);
  for (let i = 0; i < x.length; i++) energy[i + 1] = energy[i]! + x[i]! * x[i]!;
  const corr = new Float64Array(x.length - n + 1).fill(-Infinity);
  let best = -1;
  for (let lag = 0; lag + n <= x.length; lag++) {
    const e = energy[lag + n]! - energy[lag]!;
    if (e <= 0) continue;
    let dot = 0;
    for (let k = 0; k < n; k++) dot += t[k]! * x[lag + k]!;
    corr[lag] = dot / (tNorm * Math.sqrt(e));
    if (best < 0 || corr[lag]! > corr[best]!) best = lag;
  }
  if (best < 0) return { index: -1, correlation: 0 };
  // The earliest lag nearly as good as the best (`earliestWithin` of it), at the peak of the 50 ms after it: the first
  // time the phrase is heard, not a later sound that happens to match it better.
  let pick = best;
  const first = corr.findIndex((c) => c >= earliestWithin * corr[best]!);
  if (first >= 0 && first < best) {
    pick = first;
    for (let lag = first + 1; lag < Math.min(best, first + 400); lag++) if (corr[lag]! > corr[pick]!) pick = lag;
  }
  return { index: pick * 6, correlation: corr[pick]! };
}
