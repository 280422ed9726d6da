/**
 * When did the reply become audible? The analyser holds the newest `buf.length` samples, oldest first, ending at the
 * context's current time. The first sample above `amplitude` in it is the onset, mapped onto this page's
 * performance.now() clock with the context's output timestamp (which includes the output latency, so the time is
 * when it reaches the speakers). Used by the turn trace (docs/benchmarks.md, "What the user hears"): a stamp taken
 * when the main thread next looks would add the animation frame's delay, which is not something the user hears.
 */

/** A sample this far from zero counts as sound (−60 dBFS). */
export const ONSET_AMPLITUDE = 1e-3;

export interface OutputClock {
  currentTime: number;
  sampleRate: number;
  /** AudioContext.getOutputTimestamp(): a context time and when it is heard, on the performance.now() clock. */
  getOutputTimestamp?: () => { contextTime?: number; performanceTime?: number };
}

/** Index of the first sample above the onset amplitude, or -1. */
export function firstLoudSample(buf: Float32Array, amplitude = ONSET_AMPLITUDE): number {
  for (let i = 0; i < buf.length; i++) if (Math.abs(buf[i]!) > amplitude) return i;
  return -1;
}

/**
 * performance.now() time at which sample `index` of an analyser buffer read just now is heard; `nowMs` is
 * performance.now() at the read. Without a usable output timestamp (no output device) it is the read time minus the
 * sample's age.
 */
export function heardAtMs(clock: OutputClock, bufLength: number, index: number, nowMs: number): number {
  return heardAtAgeMs(clock, (bufLength - index) / clock.sampleRate, nowMs);
}

/**
 * performance.now() time at which what the context rendered `ageS` before its current time is heard: through the
 * output timestamp when there is one, else `nowMs` minus that age.
 */
function heardAtAgeMs(clock: OutputClock, ageS: number, nowMs: number): number {
  const ts = clock.getOutputTimestamp?.();
  if (ts && ts.performanceTime && ts.contextTime !== undefined && ts.performanceTime > 0) {
    return ts.performanceTime + (clock.currentTime - ageS - ts.contextTime) * 1000;
  }
  return nowMs - ageS * 1000;
}

/** Frames of one render quantum: an AudioWorklet's `process` sees this many samples per call. */
export const RENDER_QUANTUM = 128;

/**
 * When the first sample of a block posted by a framing worklet (public/worklets/mic-framer.js) is heard. The worklet
 * stamps `time`, the context time of the render quantum in which the block filled up; its blocks are whole quanta, so
 * the block ends with that quantum and began `length` samples before its end.
 */
export function blockHeardAtMs(clock: OutputClock, time: number, length: number, nowMs: number): number {
  return heardAtAgeMs(clock, clock.currentTime - time - (RENDER_QUANTUM - length) / clock.sampleRate, nowMs);
}

/**
 * What one analyser read says: its RMS, when its first sound is heard (undefined when it is silent), and when the
 * window as a whole is heard (its middle), all on this page's performance.now() clock.
 */
export function readLevel(
  buf: Float32Array,
  clock: OutputClock,
  readAtMs: number,
): { rms: number; heardAt?: number; windowAt: number } {
  let s = 0;
  for (const x of buf) s += x * x;
  const rms = Math.sqrt(s / buf.length);
  const first = firstLoudSample(buf);
  // The level is the whole window's: it is heard when the window's middle is (docs/echo.md, "When a level was heard").
  const windowAt = heardAtMs(clock, buf.length, buf.length / 2, readAtMs);
  if (first < 0) return { rms, windowAt };
  // Samples are heard one sample period apart, so the first sound's time follows from the middle's.
  return { rms, heardAt: windowAt + ((first - buf.length / 2) / clock.sampleRate) * 1000, windowAt };
}
