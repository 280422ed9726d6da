import { describe, expect, it } from 'vitest';
import { blockHeardAtMs, firstLoudSample, heardAtMs, readLevel } from '../../../components/avatar/audible-onset';

const RATE = 24_000;

/** An analyser window of `n` samples whose sound starts at `onset` (a 440 Hz tone at 0.2). */
function window(n: number, onset: number): Float32Array {
  const buf = new Float32Array(n);
  for (let i = onset; i < n; i++) buf[i] = 0.2 * Math.sin((2 * Math.PI * 440 * (i - onset)) / RATE + 0.3);
  return buf;
}

describe('audible onset from an analyser window', () => {
  it('finds the first sample above −60 dBFS, not the first non-zero one', () => {
    const buf = window(2048, 1500);
    buf[100] = 1e-4; // dither-level noise is not sound
    expect(firstLoudSample(buf)).toBe(1500);
    expect(firstLoudSample(new Float32Array(2048))).toBe(-1);
  });

  it('maps the onset onto performance.now() through the output timestamp (output latency included)', () => {
    // The context is at 10.000 s; its output timestamp says context time 9.950 s is heard at performance time 5000 ms.
    const clock = { currentTime: 10, sampleRate: RATE, getOutputTimestamp: () => ({ contextTime: 9.95, performanceTime: 5000 }) };
    // Sample 1500 of 2048 is 548 samples (22.83 ms) old: context time 9.97717 s, heard 27.17 ms after 5000 ms.
    expect(heardAtMs(clock, 2048, 1500, 4990)).toBeCloseTo(5000 + (10 - 548 / RATE - 9.95) * 1000, 6);
  });

  it("a framing worklet's block is heard from its first sample: the stamped quantum is the block's last", () => {
    // The worklet stamped quantum start 9.990 s: the 512-sample block ends with that quantum (9.990 s + 128 samples)
    // and began 384 samples before the stamp.
    const clock = { currentTime: 10, sampleRate: RATE, getOutputTimestamp: () => ({ contextTime: 9.95, performanceTime: 5000 }) };
    expect(blockHeardAtMs(clock, 9.99, 512, 4990)).toBeCloseTo(5000 + (9.99 - 384 / RATE - 9.95) * 1000, 6);
    // Without an output timestamp: the read time minus how long ago the context was there.
    expect(blockHeardAtMs({ currentTime: 10, sampleRate: RATE }, 9.99, 512, 4990)).toBeCloseTo(
      4990 - (0.01 + 384 / RATE) * 1000,
      6,
    );
  });

  it('without an output timestamp, uses the read time minus the sample age', () => {
    const clock = { currentTime: 10, sampleRate: RATE, getOutputTimestamp: () => ({ contextTime: 0, performanceTime: 0 }) };
    expect(heardAtMs(clock, 2048, 1500, 4990)).toBeCloseTo(4990 - (548 / RATE) * 1000, 6);
    expect(heardAtMs({ currentTime: 1, sampleRate: RATE }, 2048, 2047, 100)).toBeCloseTo(100 - 1000 / RATE, 6);
  });

  it('reports RMS always and a heard time only when there is sound', () => {
    const clock = { currentTime: 2, sampleRate: RATE };
    const silent = readLevel(new Float32Array(512), clock, 50);
    expect(silent).toEqual({ rms: 0, windowAt: 50 - (256 / RATE) * 1000 });
    const loud = readLevel(window(512, 256), clock, 50);
    expect(loud.rms).toBeGreaterThan(0.09);
    expect(loud.heardAt).toBeCloseTo(50 - (256 / RATE) * 1000, 6);
  });

  it('places the level at the window’s middle, as the output timestamp says it is heard', () => {
    // Context time 2.0 s is heard at performance time 1040 ms (output latency included); the window ends at 2.1 s.
    const clock = { currentTime: 2.1, sampleRate: RATE, getOutputTimestamp: () => ({ contextTime: 2, performanceTime: 1040 }) };
    const { windowAt } = readLevel(window(2400, 0), clock, 1500);
    // The middle of a 100 ms window ending at 2.1 s is 2.05 s of context time: 50 ms after 2.0 s.
    expect(windowAt).toBeCloseTo(1090, 6);
  });
});
