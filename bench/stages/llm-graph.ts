/**
 * An LFM2.5-1.2B-shaped decoder with random weights and the ONNX contract transformers.js feeds for `Lfm2ForCausalLM`
 * (the same names as tests/fixtures/models/lfm2-graph.ts): `input_ids`, `attention_mask`, `position_ids`,
 * `num_logits_to_keep`, per conv layer `past_conv.i` [B, hidden, L] and per attention layer
 * `past_key_values.i.key|value` [B, kv_heads, past, head_dim] → `logits` [B, keep, vocab] and the `present…` twins.
 *
 * Structure follows onnxruntime-genai's LFM2 builder (the optimised export style the 4-bit hub files come from):
 * Gather embedding (fp32/fp16 table), per layer SkipSimplifiedLayerNormalization, the short conv block
 * (in_proj → Transpose → Split b,c,x → b·x → Concat(past) → depthwise Conv k=3 → Slice → c·y → Transpose → out_proj)
 * or GQA (q/k/v MatMulNBits, per-head RMSNorm on q and k, GroupQueryAttention with rotary, o_proj), SwiGLU MLP,
 * final norm, last-`keep`-positions slice, LM head. Linear layers are 4-bit MatMulNBits (block 32) in 'q4'/'q4f16'
 * (activations fp32 / fp16) or plain MatMul in 'fp32'/'fp16'.
 */
import { G, toFloat16, type Act, type GraphFiles, type LinearFormat } from './onnx-graph';

export interface LlmShape {
  hidden: number;
  layerTypes: ('conv' | 'full_attention')[];
  heads: number;
  kvHeads: number;
  headDim: number;
  ff: number;
  vocab: number;
  convL: number;
  /** Rotary cos/sin cache length (max positions). */
  maxPositions: number;
}

/** LFM2.5-1.2B (config of LiquidAI/LFM2-1.2B: block_dim 2048, ff 12288 auto-adjusted to 8192, 16 layers). */
export const LFM2_1_2B: LlmShape = {
  hidden: 2048,
  layerTypes: [
    'conv',
    'conv',
    'full_attention',
    'conv',
    'conv',
    'full_attention',
    'conv',
    'conv',
    'full_attention',
    'conv',
    'full_attention',
    'conv',
    'full_attention',
    'conv',
    'full_attention',
    'conv',
  ],
  heads: 32,
  kvHeads: 8,
  headDim: 64,
  ff: 8192,
  vocab: 65536,
  convL: 3,
  maxPositions: 4096,
};

export const LFM2_TINY: LlmShape = {
  hidden: 64,
  layerTypes: ['conv', 'full_attention', 'conv', 'full_attention'],
  heads: 4,
  kvHeads: 2,
  headDim: 16,
  ff: 128,
  vocab: 512,
  convL: 3,
  maxPositions: 512,
};

export type LlmDtype = 'q4' | 'q4f16' | 'fp32' | 'fp16';

export function llmAct(dtype: LlmDtype): Act {
  return dtype === 'q4' || dtype === 'fp32' ? 'float32' : 'float16';
}

export interface LlmGraph extends GraphFiles {
  shape: LlmShape;
  dtype: LlmDtype;
  /** Bytes one decode step must read: every weight except the embedding table (one row). */
  decodeWeightBytes: number;
}

export interface LlmGraphOptions {
  seed?: number;
  external?: string;
  accuracyLevel?: number;
  /**
   * Build the decode-only, static-shape variant for graph capture (capture-bench.ts) with a KV buffer of this many
   * positions: `input_ids` [1, 1], GroupQueryAttention's own `seqlens_k` int32 [1] and `total_sequence_length`
   * int32 [1] as graph inputs (no mask → shape arithmetic, which would run on the CPU EP and forbid capture), and
   * `past_key_values.*` / `present.*` both [1, kv_heads, capacity, head_dim]: bound to one GPU buffer, GQA writes
   * the new K/V in place (past-present share buffer) and attends to the first seqlens_k + 1 positions.
   */
  staticCache?: number;
}

export function buildLlmGraph(shape: LlmShape, dtype: LlmDtype, opts: LlmGraphOptions = {}): LlmGraph {
  const act = llmAct(dtype);
  const fmt: LinearFormat = dtype.startsWith('q4') ? 'q4' : 'float';
  const g = new G({ name: `lfm2_${dtype}`, act, seed: opts.seed ?? 1, external: opts.external });
  const { hidden: H, heads, kvHeads, headDim: D, ff, vocab: V, convL } = shape;
  const lin = (x: string, K: number, N: number) => g.linear(x, K, N, fmt, { accuracyLevel: opts.accuracyLevel });

  const cap = opts.staticCache;
  if (cap && cap > shape.maxPositions) throw new Error(`static cache ${cap} > rotary table ${shape.maxPositions}`);
  if (cap) {
    g.input('input_ids', 'int64', [1, 1]);
    g.input('seqlens_k', 'int32', [1]);
    g.input('total_sequence_length', 'int32', [1]);
  } else {
    g.input('input_ids', 'int64', ['batch_size', 'sequence_length']);
    g.input('attention_mask', 'int64', ['batch_size', 'total_sequence_length']);
    g.input('position_ids', 'int64', ['batch_size', 'sequence_length']);
    g.input('num_logits_to_keep', 'int64', []);
  }

  // Embedding: a fp32/fp16 table, one row per token.
  const table = g.randn([V, H], 1, act);
  const embedBytes = V * H * (act === 'float16' ? 2 : 4);
  const x = g.op('Gather', [table, 'input_ids'], { axis: 0 });

  // GQA bookkeeping shared by all attention layers (as the genai builder emits it).
  const seqlensK = cap
    ? 'seqlens_k'
    : g.op('Cast', [g.op('Sub', [g.op('ReduceSum', ['attention_mask', g.i64([1])], { keepdims: 0 }), g.i64([1])])], { to: 6 });
  const totalScalar = cap
    ? 'total_sequence_length'
    : g.op('Squeeze', [g.op('Cast', [g.dim('attention_mask', 1)], { to: 6 }), g.i64([0])]);
  const half = D / 2;
  const cos = new Float32Array(shape.maxPositions * half);
  const sin = new Float32Array(shape.maxPositions * half);
  for (let p = 0; p < shape.maxPositions; p++) {
    for (let i = 0; i < half; i++) {
      const a = p / 1_000_000 ** ((2 * i) / D);
      cos[p * half + i] = Math.cos(a);
      sin[p * half + i] = Math.sin(a);
    }
  }
  const cache = (f: Float32Array) =>
    g.raw(
      act,
      [shape.maxPositions, half],
      act === 'float16' ? new Uint8Array(toFloat16(f).buffer) : new Uint8Array(f.buffer),
      'rope',
    );
  const cosCache = cache(cos);
  const sinCache = cache(sin);
  const negS = cap ? g.i64([-1]) : g.op('Neg', [g.dim('input_ids', 1)]);

  let normed = g.rmsNorm(x, H);
  let residual = x;
  shape.layerTypes.forEach((type, i) => {
    let out: string;
    if (type === 'conv') {
      g.input(`past_conv.${i}`, act, [cap ? 1 : 'batch_size', H, convL]);
      g.output(`present_conv.${i}`, act, [cap ? 1 : 'batch_size', H, convL]);
      const proj = g.transpose(lin(normed, H, 3 * H), [0, 2, 1]); // [B, 3H, S]
      const [b, c, xx] = g.opN('Split', [proj, g.i64([H, H, H])], 3, { axis: 1 });
      const bx = g.op('Mul', [b!, xx!]);
      const convIn = g.op('Concat', [`past_conv.${i}`, bx], { axis: 2 }); // [B, H, L+S]
      const w = g.randn([H, 1, convL], 1 / Math.sqrt(convL));
      const conv = g.op('Conv', [convIn, w], { kernel_shape: [convL], pads: [0, 0], group: H }); // [B, H, S+1]
      const convOut = g.op('Slice', [conv, negS, g.i64([Number.MAX_SAFE_INTEGER]), g.i64([2])]);
      g.op('Slice', [convIn, g.i64([-convL]), g.i64([Number.MAX_SAFE_INTEGER]), g.i64([2])], {}, `present_conv.${i}`);
      const y = g.transpose(g.op('Mul', [c!, convOut]), [0, 2, 1]);
      out = lin(y, H, H);
    } else {
      const kvDims = cap ? [1, kvHeads, cap, D] : ['batch_size', kvHeads, 'past_sequence_length', D];
      g.input(`past_key_values.${i}.key`, act, kvDims);
      g.input(`past_key_values.${i}.value`, act, kvDims);
      const presentDims = cap ? kvDims : ['batch_size', kvHeads, 'total_sequence_length', D];
      g.output(`present.${i}.key`, act, presentDims);
      g.output(`present.${i}.value`, act, presentDims);
      const headNorm = (t: string, n: number) => g.reshape(g.rmsNorm(g.reshape(t, [0, 0, n, D]), D), [0, 0, n * D]);
      const q = headNorm(lin(normed, H, heads * D), heads);
      const k = headNorm(lin(normed, H, kvHeads * D), kvHeads);
      const v = lin(normed, H, kvHeads * D);
      const attn = g.opN(
        'GroupQueryAttention',
        [q, k, v, `past_key_values.${i}.key`, `past_key_values.${i}.value`, seqlensK, totalScalar, cosCache, sinCache],
        3,
        { num_heads: heads, kv_num_heads: kvHeads, do_rotary: 1, rotary_interleaved: 0, local_window_size: -1 },
        'com.microsoft',
        [`attn_${i}`, `present.${i}.key`, `present.${i}.value`],
      );
      out = lin(attn[0]!, heads * D, H);
    }
    const [n2, sum2] = g.skipRmsNorm(out, residual, H);
    const gate = lin(n2, H, ff);
    const up = lin(n2, H, ff);
    const down = lin(g.op('Mul', [g.silu(gate), up]), ff, H);
    const [n3, sum3] = g.skipRmsNorm(down, sum2, H);
    normed = n3;
    residual = sum3;
  });
  // `normed` already holds the final norm of the last residual (the genai builder's last SkipLayerNorm).
  const keep = cap ? '' : g.op('Unsqueeze', [g.op('Neg', ['num_logits_to_keep']), g.i64([0])]);
  const last = cap ? normed : g.op('Slice', [normed, keep, g.i64([Number.MAX_SAFE_INTEGER]), g.i64([1])]);
  const logits = lin(last, H, V);
  if (act === 'float16') g.op('Cast', [logits], { to: 1 }, 'logits');
  else g.op('Identity', [logits], {}, 'logits');
  g.output('logits', 'float32', cap ? [1, 1, V] : ['batch_size', 'keep', V]);
  const files = g.build();
  return { ...files, shape, dtype, decodeWeightBytes: files.weights.bytes - embedBytes };
}

/** Fresh (empty) caches for a prompt with no cached prefix. */
export function llmStateSpecs(shape: LlmShape): { name: string; dims: number[]; kind: 'conv' | 'kv' }[] {
  const out: { name: string; dims: number[]; kind: 'conv' | 'kv' }[] = [];
  shape.layerTypes.forEach((t, i) => {
    if (t === 'conv') out.push({ name: `past_conv.${i}`, dims: [1, shape.hidden, shape.convL], kind: 'conv' });
    else {
      out.push({ name: `past_key_values.${i}.key`, dims: [1, shape.kvHeads, 0, shape.headDim], kind: 'kv' });
      out.push({ name: `past_key_values.${i}.value`, dims: [1, shape.kvHeads, 0, shape.headDim], kind: 'kv' });
    }
  });
  return out;
}

/** The present-output name that feeds each past input. */
export function presentName(pastName: string): string {
  return pastName.startsWith('past_conv.')
    ? pastName.replace('past_conv.', 'present_conv.')
    : pastName.replace('past_key_values.', 'present.');
}
