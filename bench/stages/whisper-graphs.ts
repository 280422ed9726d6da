/**
 * Whisper-base-shaped ASR graphs with random weights (openai/whisper-base as exported by onnx-community for
 * transformers.js — the app's multilingual ASR, models/registry.ts ASR_MODELS.whisper: encoder fp32, merged decoder
 * q4): d 512, 8 heads × 64, 6 encoder + 6 decoder layers, FFN 2048 GELU, 80 mel bins, vocab 51865, 448 positions.
 * - encoder: `input_features` [1, 80, 3000] (log-mel of 30 s: Whisper pads every clip to 30 s) → Conv1d k3 + GELU →
 *   Conv1d k3 s2 + GELU → + sinusoidal positions → 6 pre-LN layers (q/v/o with bias, k without) → LayerNorm →
 *   `last_hidden_state` [1, 1500, 512], plus the cross-attention K/V of the 6 decoder layers
 *   (`present.{l}.encoder.key|value` [1, 8, 1500, 64], fp32). The real merged decoder computes those in its first (no-past)
 *   step; here they are counted with the encoder, as for Moonshine (moonshine-graphs.ts), so both ASR stages split
 *   the work the same way.
 * - decoder step (the merged decoder's with-past branch, the real input/output names): `input_ids` [1, S],
 *   `past_key_values.{l}.decoder.key|value` [1, 8, P, 64], `past_key_values.{l}.encoder.key|value` →
 *   `logits` [1, S, 51865], `present.{l}.decoder.key|value`. Token embedding fp32 Gather (the q4 export keeps the
 *   106 MB table in fp32), learned positions [448, 512], self + cross attention, GELU MLP, final LayerNorm and an LM
 *   head as 4-bit MatMulNBits (the export quantises a transposed copy of the tied table: ~130 MB file in all).
 */
import { G, toFloat16, type Act, type GraphFiles, type LinearFormat } from './onnx-graph';

export interface WhisperShape {
  d: number;
  heads: number;
  encLayers: number;
  decLayers: number;
  ff: number;
  mels: number;
  /** Mel frames of the (padded) input: 3000 = 30 s at 10 ms. */
  frames: number;
  vocab: number;
  maxPositions: number;
}

export const WHISPER_BASE: WhisperShape = {
  d: 512,
  heads: 8,
  encLayers: 6,
  decLayers: 6,
  ff: 2048,
  mels: 80,
  frames: 3000,
  vocab: 51865,
  maxPositions: 448,
};
/** CI-sized (not openai/whisper-tiny): the same graphs, still over 30 s of padded input, with narrow layers. */
export const WHISPER_TINY: WhisperShape = {
  d: 64,
  heads: 2,
  encLayers: 2,
  decLayers: 2,
  ff: 128,
  mels: 80,
  frames: 3000,
  vocab: 512,
  maxPositions: 64,
};

/** The forced prefix a transcription starts with: <|startoftranscript|> <|lang|> <|transcribe|> <|notimestamps|>. */
export const WHISPER_PROMPT_TOKENS = 4;

export function buildWhisperEncoder(m: WhisperShape, act: Act, seed = 41): GraphFiles {
  const g = new G({ name: 'whisper_encoder', act, seed });
  const { d, heads } = m;
  const hd = d / heads;
  const T = m.frames / 2;
  g.input('input_features', act, [1, m.mels, m.frames]);
  let x = g.gelu(
    g.op('Conv', ['input_features', g.randn([d, m.mels, 3], 1 / Math.sqrt(3 * m.mels)), g.randn([d], 0.01)], {
      kernel_shape: [3],
      pads: [1, 1],
    }),
  );
  x = g.gelu(
    g.op('Conv', [x, g.randn([d, d, 3], 1 / Math.sqrt(3 * d)), g.randn([d], 0.01)], {
      kernel_shape: [3],
      pads: [1, 1],
      strides: [2],
    }),
  );
  x = g.op('Add', [g.transpose(x, [0, 2, 1]), sinusoids(g, T, d)]); // [1, 1500, d]
  const split = (t: string) => g.transpose(g.reshape(t, [1, -1, heads, hd]), [0, 2, 1, 3]);
  for (let l = 0; l < m.encLayers; l++) {
    const h = g.layerNorm(x, d);
    const q = split(g.linear(h, d, d, 'float', { bias: true }));
    const k = split(g.linear(h, d, d, 'float'));
    const v = split(g.linear(h, d, d, 'float', { bias: true }));
    const att = g.reshape(g.transpose(g.attention(q, k, v, hd), [0, 2, 1, 3]), [1, -1, d]);
    x = g.op('Add', [x, g.linear(att, d, d, 'float', { bias: true })]);
    const h2 = g.layerNorm(x, d);
    x = g.op('Add', [x, g.linear(g.gelu(g.linear(h2, d, m.ff, 'float', { bias: true })), m.ff, d, 'float', { bias: true })]);
  }
  x = g.layerNorm(x, d);
  g.op('Identity', [x], {}, 'last_hidden_state');
  g.output('last_hidden_state', act, [1, T, d]);
  // Cross K/V in fp32 whatever the encoder dtype: the q4 decoder that consumes them runs fp32 activations.
  const out32 = (t: string, name: string) =>
    g.op(act === 'float16' ? 'Cast' : 'Identity', [t], act === 'float16' ? { to: 1 } : {}, name);
  for (let l = 0; l < m.decLayers; l++) {
    out32(split(g.linear(x, d, d, 'float')), `present.${l}.encoder.key`);
    out32(split(g.linear(x, d, d, 'float', { bias: true })), `present.${l}.encoder.value`);
    g.output(`present.${l}.encoder.key`, 'float32', [1, heads, T, hd]);
    g.output(`present.${l}.encoder.value`, 'float32', [1, heads, T, hd]);
  }
  return g.build();
}

export interface WhisperDecoderGraph extends GraphFiles {
  /** Bytes one decode step reads: all weights except the embedding table (one row). */
  stepWeightBytes: number;
}

export function buildWhisperDecoder(m: WhisperShape, dtype: 'q4' | 'fp32', seed = 42): WhisperDecoderGraph {
  const act: Act = 'float32';
  const fmt: LinearFormat = dtype === 'q4' ? 'q4' : 'float';
  const g = new G({ name: 'whisper_decoder', act, seed });
  const { d, heads, vocab } = m;
  const hd = d / heads;
  g.input('input_ids', 'int64', [1, 'S']);
  for (let l = 0; l < m.decLayers; l++) {
    for (const kv of ['key', 'value']) g.input(`past_key_values.${l}.decoder.${kv}`, act, [1, heads, 'P', hd]);
    for (const kv of ['key', 'value']) g.input(`past_key_values.${l}.encoder.${kv}`, act, [1, heads, 'T', hd]);
  }
  const table = g.randn([vocab, d], 1);
  const S = g.dim('input_ids', 1);
  const P = g.dim('past_key_values.0.decoder.key', 2);
  const positions = g.op('Range', [
    g.op('Squeeze', [P, g.i64([0])]),
    g.op('Squeeze', [g.op('Add', [P, S]), g.i64([0])]),
    g.i64([1], []),
  ]);
  const posTable = g.randn([m.maxPositions, d], 0.1);
  let x = g.op('Add', [g.op('Gather', [table, 'input_ids'], { axis: 0 }), g.op('Gather', [posTable, positions], { axis: 0 })]); // [1, S, d]
  const split = (t: string) => g.transpose(g.reshape(t, [1, -1, heads, hd]), [0, 2, 1, 3]);
  const lin = (t: string, K: number, N: number, bias = true) => g.linear(t, K, N, fmt, { bias });
  // Causal mask for the new tokens over [past | new]: only matters when S > 1 (the forced prompt).
  const total = g.op('Add', [P, S]);
  const keyPos = g.op('Range', [g.i64([0], []), g.op('Squeeze', [total, g.i64([0])]), g.i64([1], [])]);
  const allowed = g.op('LessOrEqual', [g.op('Unsqueeze', [keyPos, g.i64([0])]), g.op('Unsqueeze', [positions, g.i64([1])])]); // [S, P+S]
  const mask = g.op('Where', [allowed, g.f([0]), g.f([-1e9])]);
  for (let l = 0; l < m.decLayers; l++) {
    const h = g.layerNorm(x, d);
    const q = split(lin(h, d, d));
    const k = g.op(
      'Concat',
      [`past_key_values.${l}.decoder.key`, split(lin(h, d, d, false))],
      { axis: 2 },
      `present.${l}.decoder.key`,
    );
    const v = g.op(
      'Concat',
      [`past_key_values.${l}.decoder.value`, split(lin(h, d, d))],
      { axis: 2 },
      `present.${l}.decoder.value`,
    );
    g.output(`present.${l}.decoder.key`, act, [1, heads, 'P+S', hd]);
    g.output(`present.${l}.decoder.value`, act, [1, heads, 'P+S', hd]);
    const att = g.reshape(g.transpose(g.attention(q, k, v, hd, mask), [0, 2, 1, 3]), [1, -1, d]);
    x = g.op('Add', [x, lin(att, d, d)]);
    const h2 = g.layerNorm(x, d);
    const q2 = split(lin(h2, d, d));
    const catt = g.attention(q2, `past_key_values.${l}.encoder.key`, `past_key_values.${l}.encoder.value`, hd);
    x = g.op('Add', [x, lin(g.reshape(g.transpose(catt, [0, 2, 1, 3]), [1, -1, d]), d, d)]);
    const h3 = g.layerNorm(x, d);
    x = g.op('Add', [x, lin(g.gelu(lin(h3, d, m.ff)), m.ff, d)]);
  }
  x = g.layerNorm(x, d);
  g.op('Identity', [lin(x, d, vocab, false)], {}, 'logits');
  g.output('logits', 'float32', [1, 'S', vocab]);
  const files = g.build();
  return { ...files, stepWeightBytes: files.weights.bytes - vocab * d * 4 };
}

/** Whisper's fixed sinusoidal encoder positions [T, d] (log-spaced timescales up to 10000). */
function sinusoids(g: G, T: number, d: number): string {
  const half = d / 2;
  const inc = Math.log(10000) / (half - 1);
  const f = new Float32Array(T * d);
  for (let t = 0; t < T; t++) {
    for (let i = 0; i < half; i++) {
      const a = t * Math.exp(-inc * i);
      f[t * d + i] = Math.sin(a);
      f[t * d + half + i] = Math.cos(a);
    }
  }
  return g.raw(g.act, [T, d], g.act === 'float16' ? new Uint8Array(toFloat16(f).buffer) : new Uint8Array(f.buffer), 'pos');
}
