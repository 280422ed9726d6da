/**
 * Moonshine-base-shaped ASR graphs with random weights (UsefulSensors Moonshine: conv stem, 8 encoder + 8 decoder
 * layers, d 416, 8 heads × 52, partial rotary 32 of 52, encoder FFN 1664 GELU, decoder gated SiLU FFN, vocab 32768).
 * - encoder: `input_values` [1, samples] (16 kHz) → conv stem (k127 s64 → tanh → GroupNorm(1) → k7 s3 → GELU →
 *   k3 s2 → GELU; ≈ 41.7 frames per second of audio) → 8 pre-LN layers → `last_hidden_state` [1, T, 416], plus the
 *   decoder's cross-attention K/V for all 8 layers (`cross.{l}.key|value` [1, 8, T, 52]) — transformers.js computes
 *   those in the merged decoder's first step; here they are counted with the encoder.
 * - decoder step (the merged decoder's with-past branch): `input_ids` [1, S], `past.{l}.key|value` [1, 8, P, 52],
 *   `cross.{l}.key|value` → `logits` [1, S, vocab], `present.{l}.key|value`. Linear layers 4-bit MatMulNBits (the
 *   `decoder_model_merged_q4` file the app requests) or fp32.
 * Encoder fp32 (what the app requests) or fp16.
 */
import { G, type Act, type GraphFiles, type LinearFormat } from './onnx-graph';

export interface MoonshineShape {
  d: number;
  heads: number;
  rot: number;
  encLayers: number;
  decLayers: number;
  encFf: number;
  decFf: number;
  vocab: number;
}

export const MOONSHINE_BASE: MoonshineShape = {
  d: 416,
  heads: 8,
  rot: 32,
  encLayers: 8,
  decLayers: 8,
  encFf: 1664,
  decFf: 1664,
  vocab: 32768,
};
export const MOONSHINE_TINY: MoonshineShape = {
  d: 64,
  heads: 2,
  rot: 16,
  encLayers: 2,
  decLayers: 2,
  encFf: 128,
  decFf: 128,
  vocab: 256,
};

/** Encoder frames for a clip of `samples` at 16 kHz (the conv stem's arithmetic). */
export function encoderFrames(samples: number): number {
  const t1 = Math.floor((samples - 127) / 64) + 1;
  const t2 = Math.floor((t1 - 7) / 3) + 1;
  return Math.floor((t2 - 3) / 2) + 1;
}

/**
 * `crossOutputs` false gives the published encoder's contract (`last_hidden_state` only), as the product loads it
 * (bench/product/asr-graphs.ts puts the cross K/V in the merged decoder's first step, where transformers.js runs it).
 */
export function buildMoonshineEncoder(m: MoonshineShape, act: Act, seed = 21, crossOutputs = true): GraphFiles {
  const g = new G({ name: 'moonshine_encoder', act, seed });
  const { d, heads } = m;
  const hd = d / heads;
  g.input('input_values', act, [1, 'samples']);
  let x = g.op('Unsqueeze', ['input_values', g.i64([1])]); // [1, 1, N]
  x = g.op('Tanh', [g.op('Conv', [x, g.randn([d, 1, 127], 1 / Math.sqrt(127))], { kernel_shape: [127], strides: [64] })]);
  // GroupNorm with one group: normalise over (C, T), then a per-channel affine. Statistics in fp32 even in the fp16
  // graph: an fp16 ReduceMean over ~10^5 elements returned 0 on the WebGPU EP (lavapipe and NVIDIA), so var = 0 → NaN.
  const x32 = act === 'float16' ? g.op('Cast', [x], { to: 1 }) : x;
  const mean = g.op('ReduceMean', [x32], { axes: [1, 2], keepdims: 1 });
  const cen = g.op('Sub', [x32, mean]);
  const v = g.op('ReduceMean', [g.op('Mul', [cen, cen])], { axes: [1, 2], keepdims: 1 });
  x = g.op('Div', [cen, g.op('Sqrt', [g.op('Add', [v, g.c('float32', [1e-5])])])]);
  if (act === 'float16') x = g.op('Cast', [x], { to: 10 });
  x = g.op('Add', [g.op('Mul', [x, g.fill([d, 1], 1)]), g.fill([d, 1], 0)]);
  x = g.gelu(
    g.op('Conv', [x, g.randn([2 * d, d, 7], 1 / Math.sqrt(7 * d)), g.randn([2 * d], 0.01)], { kernel_shape: [7], strides: [3] }),
  );
  x = g.gelu(
    g.op('Conv', [x, g.randn([d, 2 * d, 3], 1 / Math.sqrt(6 * d)), g.randn([d], 0.01)], { kernel_shape: [3], strides: [2] }),
  );
  x = g.transpose(x, [0, 2, 1]); // [1, T, d]
  const T = g.dim(x, 1);
  const pos = g.op('Cast', [g.op('Range', [g.i64([0], []), g.op('Squeeze', [T, g.i64([0])]), g.i64([1], [])])], {
    to: act === 'float16' ? 10 : 1,
  });
  const split = (t: string) => g.reshape(t, [1, -1, heads, hd]);
  for (let l = 0; l < m.encLayers; l++) {
    const h = g.layerNorm(x, d);
    const q = g.transpose(g.rope(split(g.linear(h, d, d, 'float')), pos, hd, m.rot, 10000), [0, 2, 1, 3]);
    const k = g.transpose(g.rope(split(g.linear(h, d, d, 'float')), pos, hd, m.rot, 10000), [0, 2, 1, 3]);
    const vv = g.transpose(split(g.linear(h, d, d, 'float')), [0, 2, 1, 3]);
    const att = g.reshape(g.transpose(g.attention(q, k, vv, hd), [0, 2, 1, 3]), [1, -1, d]);
    x = g.op('Add', [x, g.linear(att, d, d, 'float')]);
    const h2 = g.layerNorm(x, d);
    x = g.op('Add', [
      x,
      g.linear(g.gelu(g.linear(h2, d, m.encFf, 'float', { bias: true })), m.encFf, d, 'float', { bias: true }),
    ]);
  }
  x = g.layerNorm(x, d, 1e-5);
  g.op('Identity', [x], {}, 'last_hidden_state');
  g.output('last_hidden_state', act, [1, 'T', d]);
  for (let l = 0; l < (crossOutputs ? m.decLayers : 0); l++) {
    for (const kv of ['key', 'value']) {
      g.op('Identity', [g.transpose(split(g.linear(x, d, d, 'float')), [0, 2, 1, 3])], {}, `cross.${l}.${kv}`);
      g.output(`cross.${l}.${kv}`, act, [1, heads, 'T', hd]);
    }
  }
  return g.build();
}

export function buildMoonshineDecoder(m: MoonshineShape, dtype: 'q4' | 'fp32', seed = 22): GraphFiles {
  const act: Act = 'float32';
  const fmt: LinearFormat = dtype === 'q4' ? 'q4' : 'float';
  const g = new G({ name: 'moonshine_decoder', act, seed });
  const { d, heads, vocab } = m;
  const hd = d / heads;
  g.input('input_ids', 'int64', [1, 'S']);
  for (let l = 0; l < m.decLayers; l++) {
    g.input(`past.${l}.key`, act, [1, heads, 'P', hd]);
    g.input(`past.${l}.value`, act, [1, heads, 'P', hd]);
  }
  for (let l = 0; l < m.decLayers; l++) {
    g.input(`cross.${l}.key`, act, [1, heads, 'T', hd]);
    g.input(`cross.${l}.value`, act, [1, heads, 'T', hd]);
  }
  const table = g.randn([vocab, d], 1);
  let x = g.op('Gather', [table, 'input_ids'], { axis: 0 }); // [1, S, d]
  const S = g.dim('input_ids', 1);
  const P = g.dim('past.0.key', 2);
  const end = g.op('Add', [P, S]);
  const pos = g.op(
    'Cast',
    [g.op('Range', [g.op('Squeeze', [P, g.i64([0])]), g.op('Squeeze', [end, g.i64([0])]), g.i64([1], [])])],
    { to: 1 },
  );
  const split = (t: string) => g.reshape(t, [1, -1, heads, hd]);
  const lin = (t: string, K: number, N: number, bias = false) => g.linear(t, K, N, fmt, { bias });
  for (let l = 0; l < m.decLayers; l++) {
    const h = g.layerNorm(x, d);
    const q = g.transpose(g.rope(split(lin(h, d, d)), pos, hd, m.rot, 10000), [0, 2, 1, 3]);
    const kNew = g.transpose(g.rope(split(lin(h, d, d)), pos, hd, m.rot, 10000), [0, 2, 1, 3]);
    const vNew = g.transpose(split(lin(h, d, d)), [0, 2, 1, 3]);
    const k = g.op('Concat', [`past.${l}.key`, kNew], { axis: 2 }, `present.${l}.key`);
    const v = g.op('Concat', [`past.${l}.value`, vNew], { axis: 2 }, `present.${l}.value`);
    g.output(`present.${l}.key`, act, [1, heads, 'P+S', hd]);
    g.output(`present.${l}.value`, act, [1, heads, 'P+S', hd]);
    const att = g.reshape(g.transpose(g.attention(q, k, v, hd), [0, 2, 1, 3]), [1, -1, d]);
    x = g.op('Add', [x, lin(att, d, d)]);
    const h2 = g.layerNorm(x, d);
    const q2 = g.transpose(split(lin(h2, d, d)), [0, 2, 1, 3]);
    const catt = g.reshape(g.transpose(g.attention(q2, `cross.${l}.key`, `cross.${l}.value`, hd), [0, 2, 1, 3]), [1, -1, d]);
    x = g.op('Add', [x, lin(catt, d, d)]);
    const h3 = g.layerNorm(x, d);
    const [a, gate] = g.opN('Split', [lin(h3, d, 2 * m.decFf, true), g.i64([m.decFf, m.decFf])], 2, { axis: -1 });
    x = g.op('Add', [x, lin(g.op('Mul', [g.silu(gate!), a!]), m.decFf, d, true)]);
  }
  x = g.layerNorm(x, d);
  g.op('Identity', [lin(x, d, vocab)], {}, 'logits');
  g.output('logits', 'float32', [1, 'S', vocab]);
  return g.build();
}
