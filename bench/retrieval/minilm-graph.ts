/**
 * An all-MiniLM-L6-v2-shaped encoder with random weights, for timing only (docs/models.md § Page embeddings): BERT
 * embeddings (30,522-word table, 512 positions, 2 token types, LayerNorm), six post-LN layers of 12-head attention
 * over 384 channels with an additive padding mask and a 1,536-wide GELU feed-forward. `float` is the pinned fp32
 * `onnx/model.onnx`'s form; `int8` is that of the repo's `onnx/model_quantized.onnx` (dynamic int8: DynamicQuantizeLinear
 * → MatMulInteger for every MatMul, the word table int8 with a DequantizeLinear), measured to choose between them.
 * Same I/O contract: input_ids, attention_mask, token_type_ids int64 [batch_size, sequence_length] →
 * last_hidden_state float32 [batch_size, sequence_length, 384]. Sizes and operator mix are the real model's; its
 * numbers mean nothing.
 */
import { G, type GraphFiles } from '../stages/onnx-graph';

export const MINILM = { vocab: 30_522, positions: 512, width: 384, heads: 12, layers: 6, ffn: 1_536 } as const;

export function buildMiniLmGraph(format: 'int8' | 'float' = 'float', seed = 11): GraphFiles {
  const g = new G({ name: 'minilm_like', act: 'float32', seed, opset: 17 });
  const { vocab, positions, width: d, heads, layers, ffn } = MINILM;
  const hd = d / heads;
  const seqDims = ['batch_size', 'sequence_length'];
  const ids = g.input('input_ids', 'int64', seqDims);
  const mask = g.input('attention_mask', 'int64', seqDims);
  const types = g.input('token_type_ids', 'int64', seqDims);

  const table = new Uint8Array(vocab * d);
  g.rng.fillBytes(table);
  const words = g.op('DequantizeLinear', [g.raw('int8', [vocab, d], table, 'emb'), g.f([0.02 / 73.9]), g.c('int8', [0])]);
  const seqLen = g.dim(ids, 1);
  const posIds = g.op('Range', [g.i64([0], []), g.op('Squeeze', [seqLen, g.i64([0])]), g.i64([1], [])]);
  let h = g.op('Add', [
    g.op('Add', [
      g.op('Gather', [words, ids], { axis: 0 }),
      g.op('Gather', [g.randn([positions, d], 0.02), posIds], { axis: 0 }),
    ]),
    g.op('Gather', [g.randn([2, d], 0.02), types], { axis: 0 }),
  ]);
  h = g.layerNorm(h, d, 1e-12);

  // Additive mask [B, 1, 1, S]: 0 where attended, −10000 at padding.
  const maskF = g.op('Cast', [mask], { to: 1 });
  const additive = g.op('Mul', [g.op('Sub', [g.f([1]), maskF]), g.f([-10_000])]);
  const mask4 = g.op('Unsqueeze', [additive, g.i64([1, 2])]);
  const batch = g.dim(ids, 0);
  const headShape = g.op('Concat', [batch, seqLen, g.i64([heads, hd])], { axis: 0 });
  const flatShape = g.op('Concat', [batch, seqLen, g.i64([d])], { axis: 0 });
  const split = (t: string) => g.transpose(g.reshape(t, headShape), [0, 2, 1, 3]);
  for (let l = 0; l < layers; l++) {
    const q = split(g.linear(h, d, d, format, { bias: true }));
    const k = split(g.linear(h, d, d, format, { bias: true }));
    const v = split(g.linear(h, d, d, format, { bias: true }));
    const att = g.reshape(g.transpose(g.attention(q, k, v, hd, mask4), [0, 2, 1, 3]), flatShape);
    h = g.layerNorm(g.op('Add', [h, g.linear(att, d, d, format, { bias: true })]), d, 1e-12);
    const up = g.gelu(g.linear(h, d, ffn, format, { bias: true }));
    h = g.layerNorm(g.op('Add', [h, g.linear(up, ffn, d, format, { bias: true })]), d, 1e-12);
  }
  g.op('Identity', [h], {}, 'last_hidden_state');
  g.output('last_hidden_state', 'float32', [...seqDims, d]);
  return g.build();
}
