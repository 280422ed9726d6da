import { describe, expect, it } from 'vitest';
import { FRAME_SAMPLES } from '../../../core/engine/audio-frames';
import { loadSilero } from '../../fixtures/audio/conversation-sim';
import { noise, silence, speech } from '../../fixtures/audio/make-audio';

async function probs(audio: Float32Array): Promise<number[]> {
  const vad = await loadSilero();
  const out: number[] = [];
  for (let at = 0; at + FRAME_SAMPLES <= audio.length; at += FRAME_SAMPLES)
    out.push(await vad.process(audio.slice(at, at + FRAME_SAMPLES)));
  return out;
}

describe('Silero v5 runner (real model, in script)', () => {
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
