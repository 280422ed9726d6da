/**
 * Recognises an LFM2 decoder graph whose decode step can be turned into a static-KV graph (rewrite.ts): every
 * structure the rewrite relies on is checked here, and anything else is "not recognised" with the first reason found,
 * so the runtime keeps the plain path. The structures are those both published exporters emit (docs/llm-static-kv.md):
 * - inputs `input_ids`, `attention_mask`, optionally `position_ids` and `num_logits_to_keep`, per conv layer
 *   `past_conv.i`, per attention layer `past_key_values.i.key|value`; outputs `logits` and the `present…` twins;
 * - GroupQueryAttention (com.microsoft) on each past/present pair, no sliding window, no quantised cache, its
 *   `seqlens_k` = Cast(Sub(ReduceSum(attention_mask, [1]), 1)) and `total_sequence_length` = Cast(Gather(Shape(
 *   attention_mask), 1)), the mask read by nothing else;
 * - rotary inside GQA (`do_rotary` 1), or RotaryEmbedding nodes on q and k fed by the `position_ids` input;
 * - per conv layer Concat(past_conv.i, b·x) → depthwise Conv → Slice whose start is −(sequence length) read from a
 *   Shape (of b·x axis 2, of the layer's input axis 1, or of input_ids axis 1), and present_conv.i = Slice(concat, −L).
 */
import { ints as wireInts } from './onnx-wire';
import { attrInt, attrInts, constInts, consumers, producers, type OnnxModel, type OnnxNode } from './onnx-graph-edit';

export interface Lfm2Structure {
  ok: true;
  /** How rotary positions reach attention: inside GQA, or RotaryEmbedding nodes fed by `position_ids`. */
  rotary: 'in-attention' | 'rotary-embedding';
  /** Whether the decode step still reads `position_ids` (an input nothing reads is dropped). */
  hasPositionIds: boolean;
  hasNumLogitsToKeep: boolean;
  /** The tensors the mask arithmetic produces, to be replaced by inputs. */
  seqlensK: string;
  totalSequenceLength: string;
  attentionLayers: number[];
  convLayers: number[];
  /** Slice nodes of the conv layers whose start is −(sequence length). */
  convSlices: OnnxNode[];
  /** Rows of the rotary table (positions it covers), when it is a constant. */
  rotaryPositions?: number;
}
export type Lfm2Recognition = Lfm2Structure | { ok: false; reason: string };

const KV = /^past_key_values\.(\d+)\.(key|value)$/;
const CONV = /^past_conv\.(\d+)$/;
const PLAIN_INPUTS = new Set(['input_ids', 'attention_mask', 'position_ids', 'num_logits_to_keep']);
/** GQA inputs the rewrite understands: q, k, v, past k/v, seqlens_k, total length, cos, sin. */
const GQA_KNOWN_INPUTS = 9;

class NotRecognised extends Error {}
function need(cond: unknown, reason: string): asserts cond {
  if (!cond) throw new NotRecognised(reason);
}

export function recogniseLfm2(m: OnnxModel): Lfm2Recognition {
  try {
    return recognise(m);
  } catch (e) {
    if (e instanceof NotRecognised) return { ok: false, reason: e.message };
    throw e;
  }
}

function recognise(m: OnnxModel): Lfm2Structure {
  const prod = producers(m);
  const cons = consumers(m);
  const ints = (name: string) => constInts(m, prod, name)?.values;
  const only = (name: string, op: string): OnnxNode => {
    const n = prod.get(name);
    need(n?.opType === op, `${name} is not made by ${op} (${n?.opType ?? 'a graph input or constant'})`);
    return n;
  };

  const names = m.inputs.map((i) => i.name);
  for (const n of names) need(PLAIN_INPUTS.has(n) || KV.test(n) || CONV.test(n), `unknown graph input "${n}"`);
  need(names.includes('input_ids') && names.includes('attention_mask'), 'no input_ids / attention_mask inputs');
  const outNames = new Set(m.outputs.map((o) => o.name));
  need(outNames.has('logits'), 'no logits output');
  const attentionLayers = [...new Set(names.flatMap((n) => KV.exec(n)?.[1] ?? []).map(Number))];
  const convLayers = names.flatMap((n) => CONV.exec(n)?.[1] ?? []).map(Number);
  need(attentionLayers.length > 0, 'no past_key_values inputs');
  for (const o of m.outputs) {
    const ok = o.name === 'logits' || /^present\.\d+\.(key|value)$/.test(o.name) || /^present_conv\.\d+$/.test(o.name);
    need(ok, `unknown graph output "${o.name}"`);
  }

  // Attention: one GroupQueryAttention per past/present pair, sharing one pair of length tensors.
  const gqas = m.nodes.filter((n) => n.opType === 'GroupQueryAttention');
  need(
    gqas.length === attentionLayers.length,
    `${gqas.length} GroupQueryAttention nodes for ${attentionLayers.length} KV layers`,
  );
  let seqlensK = '';
  let total = '';
  let rotary: Lfm2Structure['rotary'] | undefined;
  let rotaryPositions: number | undefined;
  for (const layer of attentionLayers) {
    const g = gqas.find((n) => n.input[3] === `past_key_values.${layer}.key`);
    need(g && g.domain === 'com.microsoft', `past_key_values.${layer}.key does not feed a com.microsoft GroupQueryAttention`);
    need(g.input[4] === `past_key_values.${layer}.value`, `layer ${layer}: past value is not GQA input 4`);
    need(
      g.output[1] === `present.${layer}.key` && g.output[2] === `present.${layer}.value`,
      `layer ${layer}: GQA outputs are not present.${layer}.*`,
    );
    need(
      g.input.slice(GQA_KNOWN_INPUTS).every((i) => !i),
      `layer ${layer}: GQA uses inputs beyond cos/sin (position_ids, bias, sinks or norm weights)`,
    );
    need((attrInt(g, 'local_window_size') ?? -1) === -1, `layer ${layer}: GQA has a sliding window`);
    need(!g.attrs.has('kv_cache_bit_width') && !g.attrs.has('k_quant_type'), `layer ${layer}: quantised KV cache`);
    need(
      !seqlensK || (g.input[5] === seqlensK && g.input[6] === total),
      `layer ${layer}: GQA lengths differ from the first layer's`,
    );
    [seqlensK, total] = [g.input[5]!, g.input[6]!];
    const layerRotary = attrInt(g, 'do_rotary') === 1 ? 'in-attention' : 'rotary-embedding';
    need(!rotary || rotary === layerRotary, 'attention layers place rotary differently');
    rotary = layerRotary;
    if (rotary === 'in-attention') {
      need(g.input[7] && g.input[8], `layer ${layer}: do_rotary without cos/sin caches`);
      rotaryPositions = constRows(m, g.input[7]);
    } else {
      for (const qk of [g.input[0]!, g.input[1]!]) {
        const r = only(qk, 'RotaryEmbedding');
        need(
          r.domain === 'com.microsoft' && r.input[1] === 'position_ids',
          `layer ${layer}: RotaryEmbedding not fed by position_ids`,
        );
        rotaryPositions = constRows(m, r.input[2]!);
      }
    }
  }

  // The lengths: seqlens_k = Cast(Sub(ReduceSum(mask, [1], keepdims 0), 1)); total = Cast(Gather(Shape(mask), 1)).
  const sub = only(only(seqlensK, 'Cast').input[0]!, 'Sub');
  need(attrInt(only(seqlensK, 'Cast'), 'to') === 6, 'seqlens_k is not cast to int32');
  need(sameInts(ints(sub.input[1]!), [1]), 'seqlens_k does not subtract 1');
  const reduce = only(sub.input[0]!, 'ReduceSum');
  need(
    reduce.input[0] === 'attention_mask' && (attrInt(reduce, 'keepdims') ?? 1) === 0,
    'seqlens_k is not a row sum of attention_mask',
  );
  need(sameInts(reduce.input[1] ? ints(reduce.input[1]) : attrInts(reduce, 'axes'), [1]), 'seqlens_k does not sum over axis 1');
  // The project's own bench graph squeezes the length to a scalar after the cast.
  const squeezed = prod.get(total)?.opType === 'Squeeze' ? prod.get(total)!.input[0]! : total;
  const totalCast = only(squeezed, 'Cast');
  need(attrInt(totalCast, 'to') === 6, 'total_sequence_length is not cast to int32');
  const gather = only(totalCast.input[0]!, 'Gather');
  need(sameInts(ints(gather.input[1]!), [1]) && (attrInt(gather, 'axis') ?? 0) === 0, 'total_sequence_length is not dimension 1');
  const shape = only(gather.input[0]!, 'Shape');
  need(shape.input[0] === 'attention_mask' && !shape.attrs.has('start'), 'total_sequence_length is not read from attention_mask');
  const maskReaders = cons.get('attention_mask') ?? [];
  need(
    maskReaders.every((n) => n === reduce || n === shape),
    `attention_mask also feeds ${maskReaders.find((n) => n !== reduce && n !== shape)?.opType}`,
  );
  for (const t of [
    reduce.output[0]!,
    sub.output[0]!,
    shape.output[0]!,
    gather.output[0]!,
    ...(squeezed !== total ? [squeezed] : []),
  ]) {
    need((cons.get(t) ?? []).length === 1, `the mask arithmetic's ${t} has other readers`);
  }

  const positionReaders = cons.get('position_ids') ?? [];
  need(
    positionReaders.every((n) => n.opType === 'RotaryEmbedding'),
    'position_ids feeds something other than RotaryEmbedding',
  );
  const hasPositionIds = positionReaders.length > 0;
  const convSlices = convLayers.map((layer) => convSlice(m, prod, cons, ints, layer));
  return {
    ok: true,
    rotary: rotary!,
    hasPositionIds,
    hasNumLogitsToKeep: names.includes('num_logits_to_keep'),
    seqlensK,
    totalSequenceLength: total,
    attentionLayers,
    convLayers,
    convSlices,
    ...(rotaryPositions !== undefined ? { rotaryPositions } : {}),
  };
}

/** The conv layer's output Slice, after checking the layer's state arithmetic (see the module comment). */
function convSlice(
  m: OnnxModel,
  prod: Map<string, OnnxNode>,
  cons: Map<string, OnnxNode[]>,
  ints: (name: string) => number[] | undefined,
  layer: number,
): OnnxNode {
  const at = `conv layer ${layer}`;
  const readers = cons.get(`past_conv.${layer}`) ?? [];
  const concat = readers[0];
  need(
    readers.length === 1 && concat?.opType === 'Concat' && concat.input[0] === `past_conv.${layer}`,
    `${at}: past_conv is not concatenated first`,
  );
  need(
    [2, -1].includes(attrInt(concat, 'axis') ?? 0) && concat.input.length === 2,
    `${at}: concat is not along the sequence axis`,
  );
  const bx = concat.input[1]!;
  const after = cons.get(concat.output[0]!) ?? [];
  const conv = after.find((n) => n.opType === 'Conv');
  const state = after.find((n) => n.opType === 'Slice');
  need(after.length === 2 && conv && state, `${at}: the concat feeds other than one Conv and one Slice`);
  need(state.output[0] === `present_conv.${layer}`, `${at}: present_conv is not the concat's tail`);
  need(
    (ints(state.input[1]!)?.[0] ?? 0) < 0 && sameInts(ints(state.input[3] ?? ''), [2]),
    `${at}: present_conv is not a slice of the last positions`,
  );
  const convReaders = cons.get(conv.output[0]!) ?? [];
  const slice = convReaders[0];
  need(convReaders.length === 1 && slice?.opType === 'Slice', `${at}: the conv output is not sliced`);
  need(
    sameInts(ints(slice.input[3] ?? ''), [2]) && (ints(slice.input[2]!)?.[0] ?? 0) >= 2 ** 31 - 1,
    `${at}: the conv output slice is not "last positions on axis 2"`,
  );
  // The start: −(sequence length), read from a Shape.
  let t = slice.input[1]!;
  let n = prod.get(t);
  if (n?.opType === 'Unsqueeze') {
    need(sameInts(ints(n.input[1] ?? '') ?? attrInts(n, 'axes'), [0]), `${at}: unexpected Unsqueeze in the slice start`);
    t = n.input[0]!;
    n = prod.get(t);
  }
  need(
    n?.opType === 'Neg' || (n?.opType === 'Mul' && sameInts(ints(n.input[1]!), [-1])),
    `${at}: the slice start is not −(length)`,
  );
  const gather = prod.get(n.input[0]!);
  need(gather?.opType === 'Gather' && (attrInt(gather, 'axis') ?? 0) === 0, `${at}: the slice length is not a Gather of a shape`);
  const shape = prod.get(gather.input[0]!);
  need(shape?.opType === 'Shape' && !shape.attrs.has('start'), `${at}: the slice length is not read from a Shape`);
  const axis = ints(gather.input[1]!)?.[0];
  const source = shape.input[0]!;
  const ok = (axis === 2 && source === bx) || (axis === 1 && (source === 'input_ids' || source === convLayerInput(prod, bx)));
  need(ok, `${at}: the slice length is dimension ${axis} of ${source}, not the sequence length`);
  return slice;
}

/** The activation entering the conv block's in-projection (b·x ← Split ← Transpose ← linear(input)). */
function convLayerInput(prod: Map<string, OnnxNode>, bx: string): string | undefined {
  const mul = prod.get(bx);
  const split = mul?.opType === 'Mul' ? prod.get(mul.input[0]!) : undefined;
  const transpose = split?.opType === 'Split' ? prod.get(split.input[0]!) : undefined;
  const linear = transpose?.opType === 'Transpose' ? prod.get(transpose.input[0]!) : undefined;
  return linear && ['MatMul', 'MatMulNBits'].includes(linear.opType) ? linear.input[0] : undefined;
}

function constRows(m: OnnxModel, name: string): number | undefined {
  const t = m.initializers.get(name);
  return t ? wireInts(t, 1)[0] : undefined;
}

function sameInts(a: number[] | undefined, b: number[]): boolean {
  return !!a && a.length === b.length && a.every((x, i) => x === b[i]);
}
