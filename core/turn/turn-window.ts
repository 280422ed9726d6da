/**
 * The audio window an end-of-turn model sees (Smart Turn v3.2; contract and sources in docs/models.md § Smart Turn):
 * the last 8 s of the turn at 16 kHz, zeros in front when the turn is shorter, then the whole window — padding
 * included — brought to zero mean and unit variance, as the upstream inference does before its Whisper log-mel.
 */
export const TURN_SAMPLE_RATE = 16_000;
export const TURN_WINDOW_SECONDS = 8;
export const TURN_WINDOW_SAMPLES = TURN_SAMPLE_RATE * TURN_WINDOW_SECONDS;
const VARIANCE_EPS = 1e-7;

/** The last `TURN_WINDOW_SAMPLES` of `audio`, front-padded with zeros and normalised; a new array. */
export function endOfTurnWindow(audio: Float32Array): Float32Array {
  const window = new Float32Array(TURN_WINDOW_SAMPLES);
  const tail = audio.length > TURN_WINDOW_SAMPLES ? audio.subarray(audio.length - TURN_WINDOW_SAMPLES) : audio;
  window.set(tail, TURN_WINDOW_SAMPLES - tail.length);
  let sum = 0;
  for (let i = 0; i < window.length; i++) sum += window[i]!;
  const mean = sum / window.length;
  let sq = 0;
  for (let i = 0; i < window.length; i++) sq += (window[i]! - mean) ** 2;
  const scale = 1 / Math.sqrt(sq / window.length + VARIANCE_EPS);
  for (let i = 0; i < window.length; i++) window[i] = (window[i]! - mean) * scale;
  return window;
}
