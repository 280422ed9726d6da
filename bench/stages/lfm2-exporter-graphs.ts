/**
 * LFM2 decoders with random weights in the node structure of each exporter LiquidAI has published, so the static-KV
 * rewrite (models/llm/static-kv/) can be checked against both (docs/llm-static-kv.md lists the facts and their
 * sources). Written here from those descriptions, not copied:
 * - 'liquid-builder': the custom builder of Liquid4All/onnx-export (`src/liquidonnx/lfm2/builder.py`): inputs
 *   `input_ids`, `attention_mask`, `position_ids`; plain `Add` residuals around SimplifiedLayerNormalization; q/k/v as
 *   three MatMuls, per-head RMSNorm, a separate com.microsoft `RotaryEmbedding` on q and k fed by `position_ids`,
 *   GroupQueryAttention with `do_rotary = 0` and no cos/sin inputs; the conv slice length from `Shape(b·x)[2]`; final
 *   norm as SkipSimplifiedLayerNormalization(h, h); LM head as MatMul.
 * - 'genai-builder': the onnxruntime-genai model builder (`builders/lfm2.py` over `builders/base.py`, CPU EP): no
 *   `position_ids` (rotary inside GQA, `do_rotary = 1` with cos/sin caches); SkipSimplifiedLayerNormalization fusing
 *   each residual; one packed QKV MatMul split into q, k, v before the per-head norms; the conv slice length from
 *   `Shape(normed input)[1]`.
 * Both: `seqlens_k` = Cast(Sub(ReduceSum(attention_mask, [1], keepdims 0), 1), int32) and `total_sequence_length` =
 * Cast(Gather(Shape(attention_mask), 1), int32), shared by all attention layers; the conv slice start is
 * Unsqueeze(Mul(seq, −1), [0]); `present_conv.i` = Slice(concat, [−L], [max], [2]).
 */
import { llmAct, type LlmDtype, type LlmGraph, type LlmShape } from './llm-graph';
import { tensor } from '../../tests/fixtures/onnx/builder';
import { G, toFloat16, type LinearFormat } from './onnx-graph';

export type Lfm2ExporterStyle = 'liquid-builder' | 'genai-builder';
export const LFM2_EXPORTER_STYLES: readonly Lfm2ExporterStyle[] = ['liquid-builder', 'genai-builder'];

const INT64_MAX = Number.MAX_SAFE_INTEGER; // stands for INT64_MAX: Slice clamps any end past the axis

export function buildLfm2ExporterGraph(
  shape: LlmShape,
  style: Lfm2ExporterStyle,
  dtype: LlmDtype,
  opts: { seed?: number; external?: string } = {},
): LlmGraph {
  const act = llmAct(dtype);
  const fmt: LinearFormat = dtype.startsWith('q4') ? 'q4' : 'float';
  const g = new G({ name: `lfm2_${style}_${dtype}`, act, seed: opts.seed ?? 1, external: opts.external });
  const { hidden: H, heads, kvHeads, headDim: D, ff, vocab: V, convL: L } = shape;
  const lin = (x: string, K: number, N: number) => g.linear(x, K, N, fmt);
  const liquid = style === 'liquid-builder';
  // Small int64 constants: initializers in the liquid builder, `Constant` nodes in the genai builder.
  const constNodes = new Map<string, string>();
  const c64 = (values: number[], dims: number[] = [values.length]): string => {
    if (liquid) return g.i64(values, dims);
    const key = `${dims.join(',')}|${values.join(',')}`;
    const hit = constNodes.get(key);
    if (hit) return hit;
    const out = g.op('Constant', [], { value: tensor(`const_${constNodes.size}`, 'int64', dims, values) });
    constNodes.set(key, out);
    return out;
  };

  g.input('input_ids', 'int64', ['batch_size', 'sequence_length']);
  g.input('attention_mask', 'int64', ['batch_size', 'total_sequence_length']);
  if (liquid) g.input('position_ids', 'int64', ['batch_size', 'sequence_length']);
  g.output('logits', 'float32', ['batch_size', 'sequence_length', V]);

  // The lengths GroupQueryAttention takes, from the mask (both exporters).
  const seqlensK = g.op('Cast', [g.op('Sub', [g.op('ReduceSum', ['attention_mask', c64([1])], { keepdims: 0 }), c64([1])])], {
    to: 6,
  });
  const totalSeq = g.op('Cast', [g.op('Gather', [g.op('Shape', ['attention_mask']), c64([1], [])], { axis: 0 })], { to: 6 });
  const [cosCache, sinCache] = rotaryCaches(g, shape);

  const table = g.randn([V, H], 1);
  const embedBytes = V * H * (act === 'float16' ? 2 : 4);
  const embedded = g.op('Gather', [table, 'input_ids'], { axis: 0 });

  const sln = (x: string, C: number) => g.rmsNorm(x, C);
  /** genai: SkipSimplifiedLayerNormalization returns [normed, sum]; liquid: plain Add, then the norm. */
  const residualNorm = (x: string, residual: string): [string, string] => {
    if (liquid) {
      const sum = g.op('Add', [residual, x]);
      return [sln(sum, H), sum];
    }
    return g.skipRmsNorm(x, residual, H);
  };

  let residual = embedded;
  let normed = sln(embedded, H);
  shape.layerTypes.forEach((type, i) => {
    let out: string;
    if (type === 'conv') {
      g.input(`past_conv.${i}`, act, ['batch_size', H, L]);
      g.output(`present_conv.${i}`, act, ['batch_size', H, L]);
      const proj = g.transpose(lin(normed, H, 3 * H), [0, 2, 1]); // [B, 3H, S]
      const [b, c, x] = g.opN('Split', [proj, c64([H, H, H])], 3, { axis: 1 });
      const bx = g.op('Mul', [b!, x!]);
      const convIn = g.op('Concat', [`past_conv.${i}`, bx], { axis: 2 });
      const w = g.randn([H, 1, L], 1 / Math.sqrt(L));
      const conv = g.op(
        'Conv',
        [convIn, w],
        liquid ? { kernel_shape: [L], group: H } : { kernel_shape: [L], pads: [0, 0], group: H },
      );
      // Sequence length: liquid reads axis 2 of b·x [B, H, S]; genai axis 1 of the layer's input [B, S, H].
      const seq = liquid
        ? g.op('Gather', [g.op('Shape', [bx]), c64([2], [])], { axis: 0 })
        : g.op('Gather', [g.op('Shape', [normed]), c64([1], [])], { axis: 0 });
      const start = g.op('Unsqueeze', [g.op('Mul', [seq, c64([-1], [])]), c64([0])]);
      const convOut = g.op('Slice', [conv, start, c64([INT64_MAX]), c64([2])]);
      g.op('Slice', [convIn, c64([-L]), c64([INT64_MAX]), c64([2])], {}, `present_conv.${i}`);
      out = lin(g.transpose(g.op('Mul', [c!, convOut]), [0, 2, 1]), H, H);
    } else {
      const kvDims = ['batch_size', kvHeads, 'past_sequence_length', D];
      g.input(`past_key_values.${i}.key`, act, kvDims);
      g.input(`past_key_values.${i}.value`, act, kvDims);
      g.output(`present.${i}.key`, act, ['batch_size', kvHeads, 'total_sequence_length', D]);
      g.output(`present.${i}.value`, act, ['batch_size', kvHeads, 'total_sequence_length', D]);
      let q: string, k: string, v: string;
      if (liquid) {
        [q, k, v] = [lin(normed, H, heads * D), lin(normed, H, kvHeads * D), lin(normed, H, kvHeads * D)];
      } else {
        const qkv = lin(normed, H, (heads + 2 * kvHeads) * D);
        [q, k, v] = g.opN('Split', [qkv, c64([heads * D, kvHeads * D, kvHeads * D])], 3, { axis: -1 }) as [
          string,
          string,
          string,
        ];
      }
      const headNorm = (t: string, n: number) =>
        g.op('Reshape', [sln(g.op('Reshape', [t, c64([0, -1, D])]), D), c64([0, -1, n * D])]);
      q = headNorm(q, heads);
      k = headNorm(k, kvHeads);
      const common = {
        num_heads: heads,
        kv_num_heads: kvHeads,
        scale: { float: 1 / Math.sqrt(D) },
        local_window_size: -1,
        softcap: { float: 0 },
        rotary_interleaved: 0,
      };
      let gqaIn: string[];
      if (liquid) {
        const rope = (t: string) =>
          g.ms('RotaryEmbedding', [t, 'position_ids', cosCache, sinCache], {
            interleaved: 0,
            num_heads: 0,
            rotary_embedding_dim: 0,
          });
        gqaIn = [rope(q), rope(k), v, `past_key_values.${i}.key`, `past_key_values.${i}.value`, seqlensK, totalSeq, '', ''];
      } else {
        gqaIn = [q, k, v, `past_key_values.${i}.key`, `past_key_values.${i}.value`, seqlensK, totalSeq, cosCache, sinCache];
      }
      const attn = g.opN('GroupQueryAttention', gqaIn, 3, { ...common, do_rotary: liquid ? 0 : 1 }, 'com.microsoft', [
        `attn_${i}`,
        `present.${i}.key`,
        `present.${i}.value`,
      ]);
      out = lin(attn[0]!, heads * D, H);
    }
    const [n2, sum2] = residualNorm(out, residual);
    const down = lin(g.op('Mul', [g.silu(lin(n2, H, ff)), lin(n2, H, ff)]), ff, H);
    const last = i === shape.layerTypes.length - 1;
    if (liquid) {
      residual = g.op('Add', [sum2, down]);
      normed = last ? finalLiquidNorm(g, residual, H) : sln(residual, H);
    } else {
      [normed, residual] = g.skipRmsNorm(down, sum2, H);
    }
  });
  const logits = lin(normed, H, V);
  g.op(act === 'float16' ? 'Cast' : 'Identity', [logits], act === 'float16' ? { to: 1 } : {}, 'logits');
  const files = g.build();
  return { ...files, shape, dtype, decodeWeightBytes: files.weights.bytes - embedBytes };
}

/** The liquid builder's final norm: SkipSimplifiedLayerNormalization with the hidden state as input and skip. */
function finalLiquidNorm(g: G, h: string, H: number): string {
  return g.opN('SkipSimplifiedLayerNormalization', [h, h, g.fill([H], 1)], 1, { epsilon: { float: 1e-5 } }, 'com.microsoft')[0]!;
}

/** cos/sin tables [maxPositions, head_dim / 2] in the activation dtype (theta 1e6, LFM2's). */
function rotaryCaches(g: G, shape: LlmShape): [string, string] {
  const half = shape.headDim / 2;
  const cos = new Float32Array(shape.maxPositions * half);
  const sin = new Float32Array(shape.maxPositions * half);
  for (let p = 0; p < shape.maxPositions; p++) {
    for (let i = 0; i < half; i++) {
      const a = p / 1_000_000 ** ((2 * i) / shape.headDim);
      cos[p * half + i] = Math.cos(a);
      sin[p * half + i] = Math.sin(a);
    }
  }
  const bytes = (f: Float32Array) => (g.act === 'float16' ? new Uint8Array(toFloat16(f).buffer) : new Uint8Array(f.buffer));
  return [
    g.raw(g.act, [shape.maxPositions, half], bytes(cos), 'cos_cache'),
    g.raw(g.act, [shape.maxPositions, half], bytes(sin), 'sin_cache'),
  ];
}
