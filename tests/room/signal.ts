/** Levels of recorded audio (48 kHz mono float), shared by the room's tests and its benchmark. */
import { RIG_RATE } from './rig';

export function rms(s: Float32Array): number {
  let sum = 0;
  for (const x of s) sum += x * x;
  return s.length ? Math.sqrt(sum / s.length) : 0;
}

/** RMS over the 20 ms windows within 40 dB of the loudest: the level of the speech, not of its pauses. */
export function activeRms(s: Float32Array): number {
  const w = Math.round(RIG_RATE / 50);
  const levels: number[] = [];
  for (let i = 0; i + w <= s.length; i += w) {
    let sum = 0;
    for (let j = i; j < i + w; j++) sum += s[j]! * s[j]!;
    levels.push(sum / w);
  }
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
  let end = 0;
  for (let i = 0; i + w <= s.length; i += w) {
    let sum = 0;
    for (let j = i; j < i + w; j++) sum += s[j]! * s[j]!;
    if (Math.sqrt(sum / w) >= floor) end = i + w;
  }
  return end;
}
