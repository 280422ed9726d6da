import { describe, expect, it } from 'vitest';
import { percentile, summarize, turnRows, type Stamp } from '../../../bench/product/pipeline-waterfall';

const turn = (turnId: string, eos: number, offsets: Record<string, number>): Stamp[] => [
  { name: 'end-of-speech', turnId, at: eos },
  ...Object.entries(offsets).map(([name, d]) => ({ name, turnId, at: eos + d })),
];

const FULL = {
  endpoint: 200,
  transcript: 260,
  'first-token': 400,
  'first-speak': 450,
  'tts-first-frame': 520,
  'audio-ready': 600,
};

describe('the pipeline bench waterfall', () => {
  it('gives each stamp after the end of speech and the stages between them, which add up', () => {
    const [row] = turnRows(turn('t1', 1000, FULL));
    expect(row!.after).toEqual(FULL);
    expect(row!.stages).toEqual({
      endpointWait: 200,
      asrAfterEndpoint: 60,
      llmFirstToken: 140,
      firstSentence: 50,
      ttsFirstFrame: 70,
      jitterHold: 80,
    });
    expect(Object.values(row!.stages).reduce((a, b) => a! + b!, 0)).toBe(row!.endOfSpeechToAudio);
    expect(row!.complete).toBe(true);
  });

  it('takes the transcript the reply was written from, not one redone after it', () => {
    // A speculative transcript dropped when the user went on, the one the reply used, one after the reply began.
    const stamps = [
      { name: 'transcript', turnId: 't1', at: 100 },
      ...turn('t1', 0, FULL),
      { name: 'transcript', turnId: 't1', at: 500 },
    ];
    const [row] = turnRows(stamps);
    expect(row!.after.transcript).toBe(260);
    expect(row!.stages.asrAfterEndpoint).toBe(60);
  });

  it('marks a turn without audio incomplete and leaves it out of the percentiles', () => {
    const { 'audio-ready': _, ...noAudio } = FULL;
    const rows = turnRows([...turn('a', 0, FULL), ...turn('b', 5000, noAudio), { name: 'endpoint', turnId: 'x', at: 1 }]);
    expect(rows.map((r) => [r.turnId, r.complete])).toEqual([
      ['a', true],
      ['b', false],
    ]);
    expect(rows[1]!.stages.jitterHold).toBeNull();
    const s = summarize(rows);
    expect([s.turns, s.complete, s.p50.endOfSpeechToAudio]).toEqual([2, 1, 600]);
  });

  it('reads nearest-rank percentiles', () => {
    const xs = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(xs, 0.5)).toBe(5);
    expect(percentile(xs, 0.9)).toBe(9);
    expect(percentile([7], 0.9)).toBe(7);
    expect(percentile([], 0.5)).toBeNull();
  });
});
