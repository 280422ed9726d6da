import { describe, expect, it } from 'vitest';
import { synthesize, type AudioFrame } from '../../../models/tts/pocket/generator';
import { loadFixtureModel } from './helpers';

// The fixture decoder that says real words (tests/fixtures/pocket/graphs.ts, mimiSpeechDecoder): the acoustic-loop
// tests (tests/room/) rely on it playing the recording they give it, in order, through the real generation loop.
describe('fixture TTS with a speech recording as its decoder', () => {
  it('plays the recording sample for sample across frames and wraps at its end; EOS after the frames asked for', async () => {
    const speech = Float32Array.from({ length: 5000 }, (_, i) => Math.sin(i * 0.37) * ((i % 97) / 97));
    const model = await loadFixtureModel({ speech, eosAt: 9 });
    const frames: AudioFrame[] = [];
    for await (const f of synthesize(model, 'hello world', model.voices.get('alba')!, { temperature: 0 })) frames.push(f);
    // EOS at step 9, then framesAfterEos = 5 ("hello world": two words) frames still play.
    expect(frames).toHaveLength(14);
    frames.forEach((f, k) => {
      for (const n of [0, 1, 1000, 1919]) expect(f.pcm[n]).toBeCloseTo(speech[(k * 1920 + n) % speech.length]!, 6);
    });
  });
});
