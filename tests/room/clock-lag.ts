/**
 * The speakers → microphone lag of the room rig, window by window (bench/room/rig-clock.ts, and the rig's own measurement at start): a seeded probe, and the
 * lag per 1 s window found on 1 ms envelopes, then on the samples within ±2 ms of it.
 */
import { RIG_RATE } from './rig';

const WINDOW_MS = 1000;
export const MAX_LAG_MS = 1500;
/** Below this envelope correlation the probe was not found in the window (silence, or a burst the path dropped). */
const MIN_CORRELATION = 0.3;

/** Seeded noise in 20 ms chips, each on or off. */
export function probe(seconds: number, seed = 50): Float32Array {
  let x = seed;
  const rand = () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const chip = RIG_RATE / 50;
  const out = new Float32Array(seconds * RIG_RATE);
  let on = true;
  for (let i = 0; i < out.length; i++) {
    if (i % chip === 0) on = rand() < 0.5;
    out[i] = on ? (rand() * 2 - 1) * 0.3 : 0;
  }
  return out;
}

function envelope(s: Float32Array): Float32Array {
  const w = RIG_RATE / 1000;
  const e = new Float32Array(Math.floor(s.length / w));
  for (let i = 0; i < e.length; i++) {
    let sum = 0;
    for (let j = i * w; j < (i + 1) * w; j++) sum += Math.abs(s[j]!);
    e[i] = sum / w;
  }
  return e;
}

function correlation(a: Float32Array, b: Float32Array, at: number, n: number, lag: number): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[at + i]!;
    mb += b[at + lag + i]!;
  }
  ma /= n;
  mb /= n;
  for (let i = 0; i < n; i++) {
    const x = a[at + i]! - ma;
    const y = b[at + lag + i]! - mb;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  return aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : 0;
}

/** The speakers → microphone lag (ms) per window, null where the probe was not found. */
export function windowLags(speakers: Float32Array, mic: Float32Array): { atS: number; lagMs: number | null; r: number }[] {
  const es = envelope(speakers);
  const em = envelope(mic);
  const rows: { atS: number; lagMs: number | null; r: number }[] = [];
  for (let w = 0; w + WINDOW_MS + MAX_LAG_MS <= Math.min(es.length, em.length); w += WINDOW_MS) {
    let best = { lag: 0, r: -1 };
    for (let lag = 0; lag <= MAX_LAG_MS; lag++) {
      const r = correlation(es, em, w, WINDOW_MS, lag);
      if (r > best.r) best = { lag, r };
    }
    if (best.r < MIN_CORRELATION) {
      rows.push({ atS: w / 1000, lagMs: null, r: best.r });
      continue;
    }
    // The samples around the envelope's lag: the exact one.
    const k = RIG_RATE / 1000;
    let fine = { lag: best.lag * k, r: -1 };
    for (let lag = Math.max(0, (best.lag - 2) * k); lag <= (best.lag + 2) * k; lag++) {
      const r = Math.abs(correlation(speakers, mic, w * k, WINDOW_MS * k, lag));
      if (r > fine.r) fine = { lag, r };
    }
    rows.push({ atS: w / 1000, lagMs: Math.round((fine.lag / k) * 100) / 100, r: Math.round(best.r * 100) / 100 });
  }
  return rows;
}
