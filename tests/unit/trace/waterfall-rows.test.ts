import { describe, expect, it } from 'vitest';
import { waterfallRows } from '../../../components/debug/waterfall-rows';
import type { TraceStamp } from '../../../core/protocol/trace';
import { CHAIN, waterfalls } from '../../../core/trace/turn-hops';

/** One turn's stamps on the offscreen clock: end of speech at `t0`, then each chain point `gaps` ms after the last. */
function turn(turnId: string, t0: number, gaps: number[]): TraceStamp[] {
  let at = t0;
  return CHAIN.map((name, i) => {
    at += i === 0 ? 0 : gaps[i - 1]!;
    const perSentence = name.startsWith('tts-') || name.startsWith('panel-');
    return {
      name,
      turnId,
      at,
      context: name.startsWith('panel-') ? 'panel' : 'offscreen',
      ...(perSentence ? { index: 0 } : {}),
    } as TraceStamp;
  });
}

describe('debug panel waterfall rows', () => {
  const stamps = [
    ...turn('t1', 1000, [300, 0, 5, 1, 1, 200, 100, 2, 50]), // 659 ms
    ...turn('t2', 9000, [200, 60, 5, 1, 1, 150, 10, 2, 20]), // 449 ms
  ];
  const rows = waterfallRows(waterfalls(stamps));

  it('one row per heard turn, with its end of speech → first audible total', () => {
    expect(rows.map((r) => [r.turnId, r.totalMs])).toEqual([
      ['t1', 659],
      ['t2', 449],
    ]);
  });

  it('bars follow each other along the chain and are scaled to the longest turn', () => {
    const [a, b] = rows as [(typeof rows)[0], (typeof rows)[0]];
    expect(a.bars.map((x) => x.hop)).toEqual(CHAIN.slice(1));
    for (let i = 1; i < a.bars.length; i++) expect(a.bars[i]!.left).toBeCloseTo(a.bars[i - 1]!.left + a.bars[i - 1]!.width, 9);
    const end = (r: typeof a) => r.bars.at(-1)!.left + r.bars.at(-1)!.width;
    expect(end(a)).toBeCloseTo(100, 9);
    expect(end(b)).toBeCloseTo((100 * 449) / 659, 9);
    expect(b.bars.find((x) => x.hop === 'transcript')!.ms).toBe(60);
  });

  it('keeps only the newest turns', () => {
    expect(waterfallRows(waterfalls(stamps), 1).map((r) => r.turnId)).toEqual(['t2']);
  });
});
