/**
 * Is speech over the reply the reply's own echo? Found by the reply's exact audio, not by what a recogniser makes of
 * it (docs/echo.md, "Matching a burst over the reply"): the burst from its onset is matched (GCC-PHAT, echo-match.ts)
 * against the reply's audio around the position the player has reached. Chrome's canceller passes the user's voice and
 * turns the echo down, so in the processed track a burst that is mostly the reply still carries its phase; a voice
 * over the reply does not.
 *
 * Where the player is: TTS runs ahead of playback, so the newest audio handed over is not what plays. The reply's
 * audio since its first audio was heard is at most the time since then (underruns only make it less); the window runs
 * from that position back by the burst, the longest echo delay and `bargeEchoSlackMs` (for underruns and a capture
 * queue), and a little past it (the output latency).
 */
import { engineTunables as T } from '../tunables';
import { FRAME_SAMPLES, rms, VAD_SAMPLE_RATE as RATE } from './audio-frames';
import { matchEcho } from './echo-match';

/** Past the estimated position: the player reports its start before the speakers sound it. */
const AHEAD_S = 0.5;

export interface BurstEcho {
  /** The height of the match's peak over its spread (echo-match.ts). */
  score: number;
  /** At least `bargeEchoMatchMinScore`: the burst is the reply's echo. */
  own: boolean;
}

/** The range of the reply's audio (seconds of it) an echo heard now may come from, for a burst of `burstSeconds`. */
export function burstReferenceRange(sinceFirstAudioMs: number, burstSeconds: number): { fromSeconds: number; toSeconds: number } {
  const played = sinceFirstAudioMs / 1000;
  const back = burstSeconds + (T.echoMaxDelayMs + T.bargeEchoSlackMs) / 1000;
  return { fromSeconds: Math.max(0, played - back), toSeconds: played + AHEAD_S };
}

/** Null when the check is off, or either side is too short to tell. */
export function burstEcho(burst: Float32Array, reference: Float32Array | null): BurstEcho | null {
  if (T.bargeEchoMatchMinScore <= 0 || !reference) return null;
  const sounding = withoutQuietEnd(burst);
  if (sounding.length < RATE / 4) return null;
  const match = matchEcho(sounding, reference);
  if (!match) return null;
  return { score: match.score, own: match.score >= T.bargeEchoMatchMinScore };
}

/** A frame this far under the burst's loudest (−20 dB) is the quiet after it. */
const QUIET = 0.1;

/**
 * The burst without the quiet at its end: the hold silences the speakers at the duck, so a burst that was the echo
 * ends in silence until it is released, and the whitened correlation gives that silence's bins the same weight as the
 * echo's. Never shorter than the matcher's minimum, where the burst has that much.
 */
function withoutQuietEnd(burst: Float32Array): Float32Array {
  const frames = Math.floor(burst.length / FRAME_SAMPLES);
  const levels = Array.from({ length: frames }, (_, i) => rms(burst.subarray(i * FRAME_SAMPLES, (i + 1) * FRAME_SAMPLES)));
  const loudest = Math.max(0, ...levels);
  let last = frames - 1;
  while (last > 0 && levels[last]! < QUIET * loudest) last--;
  return burst.subarray(0, Math.min(burst.length, Math.max((last + 1) * FRAME_SAMPLES, RATE / 4)));
}
