/**
 * Is this sound the reply's own echo? Found by the reply's exact audio, not by timing (docs/echo.md, "Matching the
 * reply's audio"): the generalised cross-correlation with phase transform (GCC-PHAT) between the microphone's samples
 * and the samples the offscreen document sent to the player. An echo is the reply delayed and filtered by the room; its
 * cross-spectrum has one phase slope, so the whitened correlation has a sharp peak at the delay, wherever that delay
 * is. A user's voice has no such peak. The search covers every lag, so it needs no delay estimate: on a loaded
 * machine the capture path's delay moved by over a second within one reply.
 *
 * Only the speech band is weighted (`BAND_HZ`): whitening gives every bin the same weight, and the bins outside it
 * carry hum, the canceller's artefacts and little of either voice.
 */
import { MixedRadixFft } from '../turn/fft';

const SAMPLE_RATE = 16_000;
/** The rate the correlation runs at (`decimate`). */
const HALF_RATE = SAMPLE_RATE / 2;
const BAND_HZ: readonly [number, number] = [200, 4000];

export interface EchoMatch {
  /** Height of the correlation's peak over its spread: (peak − median) / (1.4826 · median absolute deviation). */
  score: number;
  /** Where the microphone's sound sits in the reference at the peak, seconds from the reference's start. */
  atSeconds: number;
}

const ffts = new Map<number, MixedRadixFft>();
function fftOf(n: number): MixedRadixFft {
  let fft = ffts.get(n);
  if (!fft) ffts.set(n, (fft = new MixedRadixFft(n)));
  return fft;
}

/** Both at 16 kHz. Null when either is too short to tell (under 0.25 s) or silent. */
export function matchEcho(mic16k: Float32Array, reference16k: Float32Array): EchoMatch | null {
  if (mic16k.length < SAMPLE_RATE / 4 || reference16k.length < SAMPLE_RATE / 4) return null;
  // The band ends at 4 kHz, so 8 kHz holds all of it: a quarter of the work of the transforms.
  const mic = decimate(mic16k);
  const reference = decimate(reference16k);
  let n = 1;
  while (n < mic.length + reference.length) n *= 2;
  const fft = fftOf(n);
  const mr = new Float64Array(n);
  const mi = new Float64Array(n);
  const rr = new Float64Array(n);
  const ri = new Float64Array(n);
  mr.set(mic);
  rr.set(reference);
  fft.transform(mr, mi);
  fft.transform(rr, ri);
  // Cross-spectrum mic · conj(reference), whitened, in the band only; conjugated so that a forward transform inverts it.
  const lo = Math.max(1, Math.floor((BAND_HZ[0] / HALF_RATE) * n));
  const hi = Math.min(n / 2 - 1, Math.ceil((BAND_HZ[1] / HALF_RATE) * n));
  const gr = new Float64Array(n);
  const gi = new Float64Array(n);
  let bins = 0;
  for (let k = lo; k <= hi; k++) {
    for (const bin of [k, n - k]) {
      const re = mr[bin]! * rr[bin]! + mi[bin]! * ri[bin]!;
      const im = mi[bin]! * rr[bin]! - mr[bin]! * ri[bin]!;
      const mag = Math.hypot(re, im);
      if (mag < 1e-12) continue;
      gr[bin] = re / mag;
      gi[bin] = -im / mag;
      bins += 1;
    }
  }
  if (bins === 0) return null;
  fft.transform(gr, gi);
  // gr[l] (conjugated back; the real part is unchanged) is the correlation at lag l: mic[t] against reference[t − l].
  // Lags run from −(reference length) to +(mic length); the reference's sound at position p shows at lag −p.
  const count = mic.length + reference.length - 1;
  let best = -Infinity;
  let bestAt = 0;
  // The spread is taken over every 4th lag: the median and its deviation do not need all of them.
  const sample = new Float64Array(Math.ceil(count / 4));
  for (let i = 0; i < count; i++) {
    const lag = i - (reference.length - 1);
    const v = gr[(lag + n) % n]!;
    if (i % 4 === 0) sample[i / 4] = v;
    if (v > best) {
      best = v;
      bestAt = lag;
    }
  }
  sample.sort();
  const median = sample[sample.length >> 1]!;
  const deviations = sample.map((v) => Math.abs(v - median)).sort();
  const mad = deviations[deviations.length >> 1]! * 1.4826;
  if (!(mad > 0)) return null;
  return { score: (best - median) / mad, atSeconds: -bestAt / HALF_RATE };
}

/** 16 kHz → 8 kHz: a windowed-sinc low-pass at 3.8 kHz (31 taps), then every second sample. */
const LOWPASS = (() => {
  const taps = 31;
  const cutoff = 3800 / SAMPLE_RATE;
  const h = Float64Array.from({ length: taps }, (_, i) => {
    const m = i - (taps - 1) / 2;
    const sinc = m === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * m) / (Math.PI * m);
    return sinc * (0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (taps - 1)));
  });
  const sum = h.reduce((a, b) => a + b, 0);
  return h.map((v) => v / sum);
})();

function decimate(x: Float32Array): Float32Array {
  const half = (LOWPASS.length - 1) / 2;
  const out = new Float32Array(Math.floor(x.length / 2));
  for (let o = 0; o < out.length; o++) {
    const c = 2 * o;
    let acc = 0;
    for (let k = 0; k < LOWPASS.length; k++) acc += LOWPASS[k]! * (x[c + k - half] ?? 0);
    out[o] = acc;
  }
  return out;
}

export interface ReplyEchoVerdict {
  /** Score of the utterance's first second against the reply. */
  head: number;
  /** How far the utterance's speech runs on past the point where the matched echo ends, ms (negative: it ends first). */
  overrunMs: number;
  /** The reply was found, and the utterance ends with its echo: it is the echo, start to end. */
  own: boolean;
}

/**
 * An utterance right after a reply is the reply's own echo when the reply's audio is found in its first second and
 * its speech ends no later than `overrunMs` after that echo does. Where the echo ends follows from where it was found:
 * the reference ends where the reply's audio ended, so the echo ends `reference length − atSeconds` after the
 * utterance's first sample. A user who starts talking while the tail still sounds goes on after it: kept.
 */
export function replyEchoVerdict(
  utterance: Float32Array,
  speechEnd: number,
  reference: Float32Array,
  minScore: number,
  overrunMs: number,
): ReplyEchoVerdict | null {
  const head = matchEcho(utterance.subarray(0, Math.min(utterance.length, speechEnd, SAMPLE_RATE)), reference);
  if (!head) return null;
  const echoEndMs = (reference.length / SAMPLE_RATE - head.atSeconds) * 1000;
  const overrun = Math.round((speechEnd / SAMPLE_RATE) * 1000 - echoEndMs);
  return { head: head.score, overrunMs: overrun, own: head.score >= minScore && overrun <= overrunMs };
}
