import { describe, expect, it } from 'vitest';
import {
  expectedSpeechSeconds,
  FRAMES_PER_SECOND,
  GenerationRate,
  holdFrames,
  SentenceJitterBuffer,
} from '../../../core/tts/jitter-buffer';

/**
 * Plays one sentence of `n` frames generated at `rate` frames/s (the first after `firstMs`), starting playback after
 * `hold` frames; returns the total silence (ms) the listener hears inside the sentence.
 */
function gapsHeard(n: number, rate: number, hold: number, firstMs = 200): number {
  const ready = Array.from({ length: n }, (_, k) => firstMs + (1000 * k) / rate);
  const released: number[] = [];
  const buffer = new SentenceJitterBuffer<number>(hold, (k) =>
    released.push(Math.max(ready[k]!, ready[Math.min(n, hold) - 1] ?? 0)),
  );
  ready.forEach((_, k) => buffer.push(k));
  buffer.finish();
  // Playback starts when the first frame is released; each frame lasts 80 ms and waits for its release.
  let clock = released[0]!;
  let silence = 0;
  for (const at of released) {
    if (at > clock) {
      silence += at - clock;
      clock = at;
    }
    clock += 1000 / FRAMES_PER_SECOND;
  }
  return silence;
}

describe('jitter buffer', () => {
  it('holds nothing while the voice keeps up with playback (or before its speed is known)', () => {
    expect(holdFrames(3, null, 800)).toBe(0);
    expect(holdFrames(3, 12.5, 800)).toBe(0);
    expect(holdFrames(3, 40, 800)).toBe(0);
  });

  it('a voice at 80 % of real time plays a 3 s sentence without a gap when held; unheld, it stalls', () => {
    const n = 3 * FRAMES_PER_SECOND;
    const rate = 0.8 * FRAMES_PER_SECOND;
    const hold = holdFrames(3, rate, 5000);
    expect(hold).toBeGreaterThan(1);
    expect(gapsHeard(n, rate, 1)).toBeGreaterThan(500);
    expect(gapsHeard(n, rate, hold)).toBeLessThan(1);
  });

  it('caps the wait, so a very slow voice starts within the limit', () => {
    const rate = 0.3 * FRAMES_PER_SECOND;
    const hold = holdFrames(10, rate, 800);
    expect(hold / rate).toBeLessThanOrEqual(0.8 + 1 / rate);
  });

  it('releases held frames in order when the sentence ends before the hold fills', () => {
    const out: number[] = [];
    const buffer = new SentenceJitterBuffer<number>(10, (k) => out.push(k));
    [0, 1, 2].forEach((k) => buffer.push(k));
    expect(out).toEqual([]);
    buffer.finish();
    buffer.push(3);
    expect(out).toEqual([0, 1, 2, 3]);
  });

  it('learns the generation rate from frame arrivals after each sentence’s first', () => {
    const rate = new GenerationRate();
    // First frame after 300 ms of prefill (not counted), then one every 100 ms: 10 frames/s.
    for (let k = 0; k < 12; k++) rate.frame(300 + 100 * k);
    expect(rate.framesPerSecond).toBeCloseTo(10, 6);
    rate.endSentence();
    for (let k = 0; k < 12; k++) rate.frame(5000 + 50 * k); // 20 frames/s: the average moves half way
    expect(rate.framesPerSecond).toBeCloseTo(15, 6);
  });

  it('estimates speaking time from the words', () => {
    expect(expectedSpeechSeconds('Sure, here is a short answer.')).toBeCloseTo(6 / 2.5, 6);
    expect(expectedSpeechSeconds('   ')).toBe(0);
  });
});
