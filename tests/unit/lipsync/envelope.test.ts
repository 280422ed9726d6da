import { describe, expect, it } from 'vitest';
import { envelopeToJaw, rmsEnvelope, sampleCurve, voicedSpan } from '../../../core/lipsync/envelope';
import { lipsyncForChunk } from '../../../core/lipsync/chunk-lipsync';

const SR = 24000;
/** silence, a 200 Hz tone at amplitude `amp` for `toneMs`, silence. */
function tone(leadMs: number, toneMs: number, tailMs: number, amp = 0.5): Float32Array {
  const n = (ms: number): number => Math.round((SR * ms) / 1000);
  const pcm = new Float32Array(n(leadMs) + n(toneMs) + n(tailMs));
  for (let i = 0; i < n(toneMs); i++) pcm[n(leadMs) + i] = amp * Math.sin((2 * Math.PI * 200 * i) / SR);
  return pcm;
}

describe('envelope', () => {
  it('measures RMS per 20 ms frame', () => {
    const env = rmsEnvelope(tone(0, 1000, 0, 0.5), SR);
    expect(env.length).toBe(50);
    for (const v of env) expect(v).toBeCloseTo(0.5 / Math.SQRT2, 2);
  });

  it('finds the voiced span', () => {
    const span = voicedSpan(rmsEnvelope(tone(200, 600, 300), SR));
    expect(span).toEqual({ start: 200, end: 800 });
    expect(voicedSpan(rmsEnvelope(new Float32Array(SR), SR))).toBeNull();
  });

  it('jaw pops open faster than it closes', () => {
    const jaw = envelopeToJaw(rmsEnvelope(tone(100, 400, 500, 0.3), SR));
    const rise = jaw.findIndex((v) => v > 0.5 * jaw[20]!);
    const fallFrom = 25;
    const fall = jaw.slice(fallFrom).findIndex((v) => v < 0.5 * jaw[24]!);
    expect(rise - 5).toBeLessThan(fall);
    expect(jaw[20]).toBeGreaterThan(0.8);
    expect(jaw.at(-1)).toBeLessThan(0.05);
    expect(sampleCurve(jaw, 410)).toBeGreaterThan(0.8);
    expect(sampleCurve(jaw, 5000)).toBe(0);
  });

  it('lipsyncForChunk fits visemes to the speech, not the silence around it', () => {
    const pcm = tone(400, 1200, 400);
    const { track, durationMs, jaw } = lipsyncForChunk(pcm, SR, 'Good morning', 1000);
    expect(durationMs).toBeCloseTo(2000, 0);
    expect(jaw.length).toBe(100);
    expect(track.vtimes[0]).toBeGreaterThanOrEqual(1000 + 400 - 150);
    const end = track.vtimes.at(-1)! + track.vdurations.at(-1)!;
    expect(end).toBeLessThanOrEqual(1000 + 1600 + 1);
    expect(lipsyncForChunk(new Float32Array(SR), SR, 'hello').track.visemes).toEqual([]);
  });
});
