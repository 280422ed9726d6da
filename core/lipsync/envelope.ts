/**
 * Audio-driven mouth motion: an RMS envelope per 20 ms frame, the voiced span of a chunk (to fit text visemes to the
 * speech rather than to leading/trailing silence), and a jaw curve that pops open and closes slowly. The jaw curve is
 * meant to be mixed *under* the text visemes (JALI's idea: jaw follows loudness, lips follow the sounds).
 */
import { lipsyncTunables } from '../tunables';

export const ENVELOPE_FRAME_MS = 20;

/** RMS of each `frameMs` frame of mono PCM in [-1, 1]. */
export function rmsEnvelope(pcm: Float32Array, sampleRate: number, frameMs = ENVELOPE_FRAME_MS): Float32Array {
  const frame = Math.max(1, Math.round((sampleRate * frameMs) / 1000));
  const n = Math.ceil(pcm.length / frame);
  const out = new Float32Array(n);
  for (let f = 0; f < n; f++) {
    let sum = 0;
    const a = f * frame;
    const b = Math.min(pcm.length, a + frame);
    for (let i = a; i < b; i++) sum += pcm[i]! * pcm[i]!;
    out[f] = Math.sqrt(sum / Math.max(1, b - a));
  }
  return out;
}

/** First and last voiced ms of an envelope (RMS above `silenceRms`), or null if the chunk is silent. */
export function voicedSpan(
  env: Float32Array,
  frameMs = ENVELOPE_FRAME_MS,
  silenceRms = lipsyncTunables.silenceRms,
): { start: number; end: number } | null {
  let first = -1;
  let last = -1;
  for (let i = 0; i < env.length; i++) {
    if (env[i]! > silenceRms) {
      if (first < 0) first = i;
      last = i;
    }
  }
  if (first < 0) return null;
  return { start: first * frameMs, end: (last + 1) * frameMs };
}

/**
 * Jaw opening 0..1 per frame: loudness mapped against `jawFullRms`, square-root compressed (quiet speech still moves
 * the mouth), then smoothed with a fast attack and a slow release.
 */
export function envelopeToJaw(env: Float32Array): Float32Array {
  const { jawFullRms, jawAttack, jawRelease, silenceRms } = lipsyncTunables;
  const out = new Float32Array(env.length);
  let y = 0;
  for (let i = 0; i < env.length; i++) {
    const x = env[i]! <= silenceRms ? 0 : Math.sqrt(Math.min(1, env[i]! / jawFullRms));
    y += (x - y) * (x > y ? jawAttack : jawRelease);
    out[i] = y;
  }
  return out;
}

/** Value of a per-frame curve at time `ms` (linear between frame centres; 0 outside). */
export function sampleCurve(curve: Float32Array, ms: number, frameMs = ENVELOPE_FRAME_MS): number {
  const f = ms / frameMs - 0.5;
  if (f < -0.5 || f > curve.length - 0.5 || curve.length === 0) return 0;
  const i = Math.max(0, Math.min(curve.length - 1, Math.floor(f)));
  const j = Math.min(curve.length - 1, i + 1);
  const k = Math.max(0, Math.min(1, f - i));
  return curve[i]! * (1 - k) + curve[j]! * k;
}
