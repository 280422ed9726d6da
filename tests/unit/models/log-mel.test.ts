import { WhisperFeatureExtractor } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import { WhisperLogMel } from '../../../core/turn/log-mel';
import { endOfTurnWindow } from '../../../core/turn/turn-window';
import { speech } from '../../fixtures/audio/make-audio';

/** transformers.js's Whisper extractor, sized for 8 s: the reference port of Whisper's features. */
async function reference(window: Float32Array): Promise<Float32Array> {
  const extractor = new WhisperFeatureExtractor({
    feature_size: 80,
    sampling_rate: 16_000,
    hop_length: 160,
    n_fft: 400,
    chunk_length: 8,
    n_samples: 128_000,
    nb_max_frames: 800,
    padding_value: 0,
  });
  const { input_features } = (await extractor(window)) as { input_features: { data: Float32Array; dims: number[] } };
  expect(input_features.dims).toEqual([1, 80, 800]);
  return input_features.data;
}

describe("Whisper log-mel (Smart Turn's features)", () => {
  it('matches transformers.js on speech, a short turn with zeros in front, and noise', async () => {
    const mel = new WhisperLogMel();
    const rnd = (i: number) => Math.sin(i * 12.9898) * 43758.5453 - Math.floor(Math.sin(i * 12.9898) * 43758.5453) - 0.5;
    const inputs = [
      speech('What is the capital of France? I would really like to know.'),
      speech('Hi.'),
      new Float32Array(128_000).map((_, i) => rnd(i)),
    ];
    for (const audio of inputs) {
      const window = endOfTurnWindow(audio);
      const ours = mel.compute(window);
      const theirs = await reference(window);
      expect(ours).toHaveLength(theirs.length);
      let worst = 0;
      for (let i = 0; i < ours.length; i++) worst = Math.max(worst, Math.abs(ours[i]! - theirs[i]!));
      expect(worst).toBeLessThan(2e-4);
    }
  });

  it('has 800 frames for 8 s and is band-major', () => {
    expect(WhisperLogMel.frames(128_000)).toBe(800);
    const out = new WhisperLogMel().compute(endOfTurnWindow(speech('Hello there.')));
    expect(out).toHaveLength(80 * 800);
    // Band-major: the front padding is one repeated frame, so each band is constant along its first 100 frames.
    for (const band of [0, 40, 79]) expect(new Set(out.subarray(band * 800, band * 800 + 100)).size).toBe(1);
  });
});
