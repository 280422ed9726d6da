/**
 * Silero VAD v5 at 16 kHz computed in plain TypeScript from the shipped ONNX file's own weights, so a microphone frame
 * never waits for onnxruntime: not for its 27 MB of WASM to load, and not behind ASR or LLM work holding the model
 * worker's thread (docs/echo.md, docs/models.md § Silero VAD in script). It runs where the frames arrive.
 *
 * The computation is the 16 kHz branch of silero_vad_v5.onnx, op for op (docs/models.md lists them):
 *   64 samples of context + 512 new → reflect-pad 64 on the right → STFT as a strided conv (258 × 256, hop 128;
 *   4 frames; computed as an FFT when the basis is a windowed DFT, windowed-dft.ts) → magnitude of 129 bins →
 *   4 conv layers (k 3, pad 1, strides 1·2·2·1, ReLU) → one LSTM cell
 *   (128, gate order i·f·g·o as stored) → ReLU → 1 × 1 conv → sigmoid.
 * Same inputs and state as the ONNX graph: the state is [h; c] (2 × 128), the next frame's context is the last 64
 * samples. tests/unit/models/silero-js.test.ts checks it against onnxruntime on speech and noise.
 */
import { FRAME_SAMPLES } from '../../core/engine/audio-frames';
import { readFloatConstants, type FloatConstant } from './onnx-constants';
import { dftWindow, WindowedMagnitude } from './windowed-dft';

export const SILERO_CONTEXT_SAMPLES = 64;
const INPUT = SILERO_CONTEXT_SAMPLES + FRAME_SAMPLES; // 576
const PAD = 64;
const WINDOW = 256;
const HOP = 128;
const BINS = 129;
const STFT_FRAMES = (INPUT + PAD - WINDOW) / HOP + 1; // 4
const HIDDEN = 128;

interface ConvLayer {
  /** [out][3][in]: the stored [out][in][3] with the taps outermost, so the innermost loop reads both arrays in order. */
  weight: Float32Array;
  bias: Float32Array;
  inCh: number;
  outCh: number;
  stride: number;
}

export interface SileroWeights {
  basis: Float32Array; // [258][256]
  /** The basis's window when the basis is window × DFT (then the STFT runs as an FFT: windowed-dft.ts), else null. */
  window: Float32Array | null;
  encoder: ConvLayer[];
  weightIh: Float32Array; // [512][128]
  weightHh: Float32Array; // [512][128]
  biasIhHh: Float32Array; // [512], b_ih + b_hh
  outWeight: Float32Array; // [128]
  outBias: number;
}

const BASIS_SUFFIX = 'stft.forward_basis_buffer';

/** The 16 kHz branch's weights: the Constants sharing the prefix of the [258, 1, 256] STFT basis. */
export function sileroWeights(model: Uint8Array): SileroWeights {
  const constants = readFloatConstants(model);
  const basisName = [...constants.keys()].find((name) => {
    const c = constants.get(name)!;
    return name.endsWith(BASIS_SUFFIX) && c.dims.join('x') === `${2 * BINS}x1x${WINDOW}`;
  });
  if (!basisName) throw new Error('Silero VAD: no 16 kHz STFT basis in the model');
  const prefix = basisName.slice(0, -BASIS_SUFFIX.length);
  const get = (name: string, dims: number[]): FloatConstant => {
    const c = constants.get(prefix + name);
    if (!c) throw new Error(`Silero VAD: model lacks ${name}`);
    if (c.dims.join('x') !== dims.join('x'))
      throw new Error(`Silero VAD: ${name} is ${c.dims.join('×')}, expected ${dims.join('×')}`);
    return c;
  };
  const channels = [BINS, 128, 64, 64, 128];
  const strides = [1, 2, 2, 1];
  const encoder = strides.map((stride, i) => ({
    weight: tapsOutermost(get(`encoder.${i}.reparam_conv.weight`, [channels[i + 1]!, channels[i]!, 3]).data, channels[i]!),
    bias: get(`encoder.${i}.reparam_conv.bias`, [channels[i + 1]!]).data,
    inCh: channels[i]!,
    outCh: channels[i + 1]!,
    stride,
  }));
  const biasIh = get('decoder.rnn.bias_ih', [4 * HIDDEN]).data;
  const biasHh = get('decoder.rnn.bias_hh', [4 * HIDDEN]).data;
  const basis = get(BASIS_SUFFIX, [2 * BINS, 1, WINDOW]).data;
  return {
    basis,
    window: dftWindow(basis, WINDOW, BINS),
    encoder,
    weightIh: get('decoder.rnn.weight_ih', [4 * HIDDEN, HIDDEN]).data,
    weightHh: get('decoder.rnn.weight_hh', [4 * HIDDEN, HIDDEN]).data,
    biasIhHh: biasIh.map((b, i) => b + biasHh[i]!),
    outWeight: get('decoder.decoder.2.weight', [1, HIDDEN, 1]).data,
    outBias: get('decoder.decoder.2.bias', [1]).data[0]!,
  };
}

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/** [out][in][3] → [out][3][in]. */
function tapsOutermost(weight: Float32Array, inCh: number): Float32Array {
  const out = new Float32Array(weight.length);
  const outCh = weight.length / (inCh * 3);
  for (let o = 0; o < outCh; o++)
    for (let c = 0; c < inCh; c++) for (let k = 0; k < 3; k++) out[(o * 3 + k) * inCh + c] = weight[(o * inCh + c) * 3 + k]!;
  return out;
}

/**
 * One conv layer (kernel 3, pad 1), ReLU applied. Time-major on both sides: input [len][inCh], output
 * [outLen][outCh], so each tap's dot product runs over two contiguous rows.
 */
function convRelu(layer: ConvLayer, input: Float32Array, len: number): { out: Float32Array; len: number } {
  const outLen = Math.floor((len + 2 - 3) / layer.stride) + 1;
  const { weight, bias, inCh, outCh, stride } = layer;
  const out = new Float32Array(outCh * outLen);
  for (let t = 0; t < outLen; t++) {
    for (let o = 0; o < outCh; o++) {
      let acc = bias[o]!;
      for (let k = 0; k < 3; k++) {
        const x = t * stride + k - 1;
        if (x < 0 || x >= len) continue;
        const w = (o * 3 + k) * inCh;
        const v = x * inCh;
        for (let c = 0; c < inCh; c++) acc += weight[w + c]! * input[v + c]!;
      }
      out[t * outCh + o] = acc > 0 ? acc : 0;
    }
  }
  return { out, len: outLen };
}

export class SileroVadJs {
  private h = new Float32Array(HIDDEN);
  private c = new Float32Array(HIDDEN);
  private readonly input = new Float32Array(INPUT + PAD);
  private readonly spectrum = new Float32Array(BINS * STFT_FRAMES);
  private readonly gates = new Float32Array(4 * HIDDEN);

  private readonly fft: WindowedMagnitude | null;

  constructor(private readonly w: SileroWeights) {
    this.fft = w.window ? new WindowedMagnitude(w.window) : null;
  }

  static fromOnnx(model: Uint8Array): SileroVadJs {
    return new SileroVadJs(sileroWeights(model));
  }

  /** P(speech) for one 512-sample 16 kHz frame; frames must be fed in order (the model is recurrent). */
  processSync(frame: Float32Array): number {
    if (frame.length !== FRAME_SAMPLES)
      throw new Error(`Silero VAD: frame must be ${FRAME_SAMPLES} samples, got ${frame.length}`);
    const x = this.input;
    // The context (the previous frame's last 64 samples) is already at the front.
    x.set(frame, SILERO_CONTEXT_SAMPLES);
    for (let k = 0; k < PAD; k++) x[INPUT + k] = x[INPUT - 2 - k]!; // reflect, edge sample not repeated
    this.stft(x);
    let feat: Float32Array = this.spectrum;
    let len = STFT_FRAMES;
    for (const layer of this.w.encoder) ({ out: feat, len } = convRelu(layer, feat, len));
    // len is 1 here: the encoder's output is the LSTM cell's input vector.
    const prob = this.lstmAndHead(feat);
    x.copyWithin(0, INPUT - SILERO_CONTEXT_SAMPLES, INPUT);
    return prob;
  }

  async process(frame: Float32Array): Promise<number> {
    return this.processSync(frame);
  }

  /** Forget the recurrent state and context, e.g. after the mic was off. */
  reset(): void {
    this.h = new Float32Array(HIDDEN);
    this.c = new Float32Array(HIDDEN);
    this.input.fill(0);
  }

  private stft(x: Float32Array): void {
    if (this.fft) {
      for (let t = 0; t < STFT_FRAMES; t++) this.fft.magnitudes(x, t * HOP, this.spectrum, t * BINS);
      return;
    }
    const basis = this.w.basis;
    for (let f = 0; f < BINS; f++) {
      const re = f * WINDOW;
      const im = (f + BINS) * WINDOW;
      for (let t = 0; t < STFT_FRAMES; t++) {
        let a = 0;
        let b = 0;
        const off = t * HOP;
        for (let k = 0; k < WINDOW; k++) {
          const v = x[off + k]!;
          a += basis[re + k]! * v;
          b += basis[im + k]! * v;
        }
        this.spectrum[t * BINS + f] = Math.sqrt(a * a + b * b);
      }
    }
  }

  private lstmAndHead(input: Float32Array): number {
    const { weightIh, weightHh, biasIhHh, outWeight, outBias } = this.w;
    const g = this.gates;
    const h = this.h;
    for (let j = 0; j < 4 * HIDDEN; j++) {
      let acc = biasIhHh[j]!;
      const row = j * HIDDEN;
      for (let i = 0; i < HIDDEN; i++) acc += weightIh[row + i]! * input[i]! + weightHh[row + i]! * h[i]!;
      g[j] = acc;
    }
    const nextH = new Float32Array(HIDDEN);
    const nextC = new Float32Array(HIDDEN);
    let logit = outBias;
    for (let i = 0; i < HIDDEN; i++) {
      const inGate = sigmoid(g[i]!);
      const forget = sigmoid(g[HIDDEN + i]!);
      const cell = Math.tanh(g[2 * HIDDEN + i]!);
      const outGate = sigmoid(g[3 * HIDDEN + i]!);
      const c = forget * this.c[i]! + inGate * cell;
      const hi = outGate * Math.tanh(c);
      nextC[i] = c;
      nextH[i] = hi;
      if (hi > 0) logit += outWeight[i]! * hi;
    }
    this.h = nextH;
    this.c = nextC;
    return sigmoid(logit);
  }
}
