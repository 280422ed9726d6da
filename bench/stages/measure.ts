/** Timing statistics and output-validity checks shared by the stage benches. */
import { fromFloat16 } from './onnx-graph';

export interface Stats {
  n: number;
  median: number;
  p10: number;
  p90: number;
  min: number;
  max: number;
}

export function stats(xs: number[]): Stats {
  if (xs.length === 0) return { n: 0, median: NaN, p10: NaN, p90: NaN, min: NaN, max: NaN };
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.round(p * (s.length - 1))))]!;
  return {
    n: s.length,
    median: round(q(0.5)),
    p10: round(q(0.1)),
    p90: round(q(0.9)),
    min: round(s[0]!),
    max: round(s[s.length - 1]!),
  };
}

export function round(x: number, digits = 3): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function median(xs: number[]): number {
  return stats(xs).median;
}

export interface Validity {
  name: string;
  elements: number;
  nonFinite: number;
  allZero: boolean;
  meanAbs: number;
}

interface TensorLike {
  type: string;
  data: unknown;
  location?: string;
}

/** Validity of one CPU-side output: counts non-finite values and flags an all-zero tensor (gpu-bench.md §5). */
export function checkTensor(name: string, t: TensorLike): Validity {
  const data = t.data as ArrayLike<number>;
  const half = t.type === 'float16' && !(typeof Float16Array !== 'undefined' && data instanceof Float16Array);
  let nonFinite = 0;
  let sum = 0;
  let nonZero = 0;
  for (let i = 0; i < data.length; i++) {
    const v = half ? fromFloat16(data[i]!) : Number(data[i]);
    if (!Number.isFinite(v)) nonFinite++;
    else {
      sum += Math.abs(v);
      if (v !== 0) nonZero++;
    }
  }
  return {
    name,
    elements: data.length,
    nonFinite,
    allZero: data.length > 0 && nonZero === 0,
    meanAbs: data.length ? round(sum / data.length, 5) : 0,
  };
}

export function isValid(v: Validity): boolean {
  return v.elements === 0 || (v.nonFinite === 0 && !v.allZero);
}

/** Index of the largest value (greedy sampling, as transformers.js does on the CPU). */
export function argmax(t: TensorLike): number {
  const data = t.data as ArrayLike<number>;
  let best = -Infinity;
  let at = 0;
  for (let i = 0; i < data.length; i++) {
    const v = Number(data[i]);
    if (v > best) {
      best = v;
      at = i;
    }
  }
  return at;
}

export const now = (): number => performance.now();

/** One utterance length of an encoder–decoder ASR bench (Moonshine, Whisper): the same fields for both tables. */
export function asrLengthMetrics(m: {
  seconds: number;
  encoderFrames: number;
  firstMs: number;
  encoderTimes: number[];
  tokens: number;
  steps: number[];
  decodeMs: number;
}) {
  const encMs = stats(m.encoderTimes).median;
  return {
    seconds: m.seconds,
    encoderFrames: m.encoderFrames,
    encoderFirstEncounterMs: round(m.firstMs, 2),
    encoderMs: stats(m.encoderTimes),
    decoderTokens: m.tokens,
    decoderStepMs: stats(m.steps.slice(1)),
    decoderFirstStepMs: round(m.steps[0]!, 2),
    totalMs: round(encMs + m.decodeMs, 2),
    msPerAudioSecond: round((encMs + m.decodeMs) / m.seconds, 2),
  };
}
