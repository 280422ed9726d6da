// core/echo/reference-timeline: what the speakers played, read back at the microphone's rate on the receiving clock.
import { describe, expect, it } from 'vitest';
import { ReferenceTimeline } from '../../../core/echo/reference-timeline';

const RATE = 24_000;
const HZ = 440;
/** A 440 Hz tone at 24 kHz from sample `from`, `n` samples: the reply's audio, cut into the panel's blocks. */
const tone = (from: number, n: number) =>
  Float32Array.from({ length: n }, (_, i) => Math.sin((2 * Math.PI * HZ * (from + i)) / RATE));
const expected16k = (t0Ms: number, n: number) =>
  Float32Array.from({ length: n }, (_, i) => Math.sin(2 * Math.PI * HZ * ((t0Ms + (i * 1000) / 16_000) / 1000)));
const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i]!)), 0);

/** Blocks of 512 samples from time 1000 ms, each reported with a clock wobble of up to ±`wobbleMs`. */
function played(blocks: number, wobbleMs: number, seed = 7): ReferenceTimeline {
  const timeline = new ReferenceTimeline();
  let s = seed;
  const rand = () => ((s = (s * 16807) % 2147483647) / 2147483647) * 2 - 1;
  for (let k = 0; k < blocks; k++) {
    const exact = 1000 + (k * 512 * 1000) / RATE;
    // The run's first block sets its time; the wobble of the ones after it is what must not show.
    timeline.add(exact + (k === 0 ? 0 : rand() * wobbleMs), tone(k * 512, 512), RATE);
  }
  return timeline;
}

describe('ReferenceTimeline', () => {
  it('a run of blocks whose times wobble by ±1.5 ms reads back as one continuous signal, at 16 kHz', () => {
    const timeline = played(40, 1.5);
    // 300 ms in, one microphone frame (512 samples at 16 kHz = 32 ms).
    const got = timeline.read(1300, 512);
    expect(maxDiff(got, expected16k(300, 512))).toBeLessThan(0.02);
    // Across a block boundary the interpolation takes the next block's first sample (no step to zero).
    const boundaryMs = 1000 + (3 * 512 * 1000) / RATE;
    expect(maxDiff(timeline.read(boundaryMs - 1, 32), expected16k(boundaryMs - 1000 - 1, 32))).toBeLessThan(0.02);
    // Half a sample before the boundary: halfway between the block's last sample and the next block's first.
    const halfway = (tone(3 * 512 - 1, 1)[0]! + tone(3 * 512, 1)[0]!) / 2;
    expect(timeline.read(boundaryMs - 500 / RATE, 1)[0]).toBeCloseTo(halfway, 4);
  });

  it('silence before the first block, in a gap the player left, and after the last', () => {
    const timeline = new ReferenceTimeline();
    timeline.add(1000, tone(0, 2400), RATE); // 1000–1100 ms
    timeline.add(1300, tone(2400, 2400), RATE); // after a 200 ms drain
    const got = timeline.read(950, 16 * 500); // 950–1450 ms
    const at = (ms: number) => got[Math.round(((ms - 950) * 16_000) / 1000)]!;
    const rms = (from: number, to: number) => {
      const seg = got.subarray(Math.round(((from - 950) * 16_000) / 1000), Math.round(((to - 950) * 16_000) / 1000));
      return Math.sqrt(seg.reduce((a, v) => a + v * v, 0) / seg.length);
    };
    expect(rms(950, 999)).toBe(0);
    expect(rms(1005, 1095)).toBeGreaterThan(0.6);
    expect(rms(1101, 1299)).toBe(0);
    expect(rms(1305, 1395)).toBeGreaterThan(0.6);
    expect(rms(1401, 1450)).toBe(0);
    expect(Math.abs(at(1050) - Math.sin((2 * Math.PI * HZ * 1200) / RATE))).toBeLessThan(0.02);
    expect(timeline.endMs).toBeCloseTo(1400, 6);
  });

  it('keeps only the last keepMs; a block from a clock that jumped back replaces what it overlaps', () => {
    const timeline = new ReferenceTimeline(1_000);
    timeline.add(0, tone(0, 2400), RATE);
    timeline.add(5_000, tone(0, 2400), RATE);
    expect(Math.max(...timeline.read(0, 1600).map(Math.abs))).toBe(0); // forgotten
    timeline.add(
      5_050,
      tone(0, 2400).map((v) => v / 2),
      RATE,
    ); // 50 ms before the last block's end
    const got = timeline.read(5_000, 16 * 150);
    expect(Math.max(...got.subarray(0, 16 * 49).map(Math.abs))).toBe(0); // the older block is gone
    expect(Math.max(...got.subarray(16 * 51, 16 * 149).map(Math.abs))).toBeCloseTo(0.5, 1);
  });

  it('ignores a block without a usable time or samples', () => {
    const timeline = new ReferenceTimeline();
    timeline.add(Number.NaN, tone(0, 512), RATE);
    timeline.add(10, new Float32Array(0), RATE);
    timeline.add(10, tone(0, 512), 0);
    expect(timeline.endMs).toBe(-Infinity);
  });
});
