import { describe, expect, it } from 'vitest';
import { FRAME_SAMPLES, Framer, Resampler16k, rms } from '../../../core/engine/audio-frames';
import { loadSilero } from '../../fixtures/audio/conversation-sim';
import { noise, silence, speech } from '../../fixtures/audio/make-audio';

async function probs(audio: Float32Array): Promise<number[]> {
  const vad = await loadSilero();
  const framer = new Framer();
  const out: number[] = [];
  for (const frame of framer.push(audio)) out.push(await vad.process(frame));
  await vad.release();
  return out;
}

describe('Silero v5 runner (real model, onnxruntime-node)', () => {
  it('scores espeak speech high and silence / pink noise low', async () => {
    const voiced = await probs(speech('The quick brown fox jumps over the lazy dog.'));
    const quiet = await probs(silence(1000));
    const pink = await probs(noise('pinknoise', 1, 0.1));
    const share = (xs: number[], f: (x: number) => boolean) => xs.filter(f).length / xs.length;
    expect(share(voiced, (p) => p > 0.5)).toBeGreaterThan(0.6);
    expect(Math.max(...quiet)).toBeLessThan(0.1);
    expect(share(pink, (p) => p > 0.5)).toBeLessThan(0.1);
  });

  it('rejects frames of the wrong size', async () => {
    const vad = await loadSilero();
    await expect(vad.process(new Float32Array(480))).rejects.toThrow(/512/);
  });
});

describe('Resampler16k + Framer', () => {
  it('turns 48 kHz capture into 16 kHz frames, keeping in-band tones and removing aliasing ones', () => {
    const tone = (hz: number, n: number) =>
      Float32Array.from({ length: n }, (_, i) => 0.5 * Math.sin((2 * Math.PI * hz * i) / 48000));
    const run = (input: Float32Array) => {
      const r = new Resampler16k(48000);
      const parts: Float32Array[] = [];
      for (let i = 0; i < input.length; i += 128) parts.push(r.process(input.subarray(i, i + 128))); // worklet-sized blocks
      const framer = new Framer();
      return parts.flatMap((p) => framer.push(p));
    };
    const inBand = run(tone(1000, 48000));
    // 1 s in → 16,000 samples out less the filter's half-length of look-ahead → 31 full frames.
    expect(inBand.length).toBe(Math.floor((16000 - 16) / FRAME_SAMPLES));
    expect(rms(inBand[10]!)).toBeCloseTo(0.5 / Math.SQRT2, 1);
    const alias = run(tone(12000, 48000)); // above the 8 kHz output Nyquist
    expect(rms(alias[10]!)).toBeLessThan(0.02);
  });
});
