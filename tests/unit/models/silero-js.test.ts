/**
 * The script Silero VAD (models/vad/silero-js.ts) against onnxruntime running the same shipped silero_vad_v5.onnx:
 * frame by frame, over speech, noise, silence and a reset, the probabilities must agree to float32 rounding.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FRAME_SAMPLES } from '../../../core/engine/audio-frames';
import { SileroVadJs, sileroWeights } from '../../../models/vad/silero-js';
import { readFloatConstants } from '../../../models/vad/onnx-constants';
import { dftWindow } from '../../../models/vad/windowed-dft';
import { loadSileroOrt, SILERO_PATH } from '../../fixtures/audio/conversation-sim';
import { noise, silence, speech } from '../../fixtures/audio/make-audio';

const MODEL = new Uint8Array(readFileSync(SILERO_PATH));

function frames(...parts: Float32Array[]): Float32Array[] {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const all = new Float32Array(total);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  const out: Float32Array[] = [];
  for (let i = 0; i + FRAME_SAMPLES <= all.length; i += FRAME_SAMPLES) out.push(all.slice(i, i + FRAME_SAMPLES));
  return out;
}

describe('Silero VAD in script', () => {
  it('reads the 16 kHz branch of the shipped model, not the 8 kHz one', () => {
    const constants = readFloatConstants(MODEL);
    // Both branches carry the same names; only the 16 kHz basis is 258 × 1 × 256.
    const bases = [...constants.entries()].filter(([name]) => name.endsWith('stft.forward_basis_buffer'));
    expect(bases.map(([, c]) => c.dims.join('x')).sort()).toEqual(['130x1x128', '258x1x256']);
    const w = sileroWeights(MODEL);
    expect(w.basis.length).toBe(258 * 256);
    expect(w.encoder.map((l) => `${l.inCh}>${l.outCh}/${l.stride}`)).toEqual(['129>128/1', '128>64/2', '64>64/2', '64>128/1']);
  });

  it('gives onnxruntime’s probabilities frame by frame over speech, noise, silence and a reset', async () => {
    const ort = await loadSileroOrt();
    const js = SileroVadJs.fromOnnx(MODEL);
    const input = frames(
      silence(300),
      speech('The lighthouse keeper counted the ships every evening.'),
      noise('pinknoise', 1, 0.05),
      speech('Wait, stop!', { voice: 'en-us+f3', gain: 0.4 }),
      silence(500),
    );
    const run = async (list: Float32Array[]) => {
      let worst = 0;
      const probs: number[] = [];
      for (const f of list) {
        const a = await ort.process(f);
        const b = js.processSync(f);
        worst = Math.max(worst, Math.abs(a - b));
        probs.push(a);
      }
      return { worst, probs };
    };
    const first = await run(input);
    // The clip has both speech and non-speech, so agreement is not two flat lines.
    expect(Math.max(...first.probs)).toBeGreaterThan(0.9);
    expect(Math.min(...first.probs)).toBeLessThan(0.1);
    expect(first.worst).toBeLessThan(1e-4);
    ort.reset();
    js.reset();
    const again = await run(input.slice(20, 60));
    expect(again.worst).toBeLessThan(1e-4);
  });

  it('runs the STFT as an FFT on the shipped basis (a windowed DFT), with the basis product’s probabilities', () => {
    const w = sileroWeights(MODEL);
    expect(w.window).not.toBeNull();
    const fft = new SileroVadJs(w);
    const product = new SileroVadJs({ ...w, window: null });
    const input = frames(silence(200), speech('Stop, wait a second.'), noise('pinknoise', 0.5, 0.05));
    let worst = 0;
    for (const f of input) worst = Math.max(worst, Math.abs(fft.processSync(f) - product.processSync(f)));
    expect(worst).toBeLessThan(1e-5);
    // A basis that is not window × DFT keeps the product.
    const bent = w.basis.slice();
    bent[3 * 256 + 17] = bent[3 * 256 + 17]! + 0.01;
    expect(dftWindow(bent, 256, 129)).toBeNull();
    expect(dftWindow(w.basis, 256, 129)).toEqual(w.basis.slice(0, 256));
  });

  it('refuses a frame of the wrong size and a model without the weights', () => {
    const js = SileroVadJs.fromOnnx(MODEL);
    expect(() => js.processSync(new Float32Array(480))).toThrow(/512 samples/);
    expect(() => SileroVadJs.fromOnnx(MODEL.slice(0, 1000))).toThrow(/ONNX|Silero/);
  });
});
