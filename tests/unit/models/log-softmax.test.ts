// The ASR confidence's log-softmax (models/asr/log-softmax.ts), given or finding the row's maximum, must
// match the exact value on flat, spread and peaked rows of a real vocabulary's size.
import { describe, expect, it } from 'vitest';
import { logSoftmaxAt } from '../../../models/asr/log-softmax';

function exact(row: Float32Array, index: number): number {
  let max = -Infinity;
  for (const x of row) max = Math.max(max, x);
  let sum = 0;
  for (const x of row) sum += Math.exp(x - max);
  return row[index]! - max - Math.log(sum);
}

function rowOf(n: number, scale: number, seed: number): Float32Array {
  const row = new Float32Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    row[i] = (s / 2 ** 32 - 0.5) * scale;
  }
  return row;
}

describe('logSoftmaxAt', () => {
  it.each([
    ['flat', 0.1],
    ['spread like a decoder’s logits', 40],
    ['wide enough to overflow exp without the shift', 2000],
  ])('matches the exact log-softmax on a %s row of 32,768 scores', (_, scale) => {
    const row = rowOf(32768, scale, 11);
    let best = 0;
    for (let i = 1; i < row.length; i++) if (row[i]! > row[best]!) best = i;
    for (const index of [0, 17, best, 32767]) expect(Math.abs(logSoftmaxAt(row, index) - exact(row, index))).toBeLessThan(1e-6);
    expect(logSoftmaxAt(row, best, row[best]!)).toBeCloseTo(exact(row, best), 9);
  });

  it('on a peaked row, the chosen id’s log-prob is near 0 and the rest far below', () => {
    const row = rowOf(32768, 4, 5);
    row[123] = 60;
    expect(logSoftmaxAt(row, 123)).toBeCloseTo(exact(row, 123), 9);
    expect(logSoftmaxAt(row, 7)).toBeCloseTo(exact(row, 7), 6);
  });
});
