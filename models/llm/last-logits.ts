/**
 * Load-time rewrite of the plain LLM graph so that it computes the logits of the last position only
 * (docs/llm-static-kv.md, "Logits of the last position"). Both published LFM2 exporters end in the LM head over every
 * position, `logits` [batch, sequence, vocab] (docs/models.md), and transformers.js asks for the last row only through
 * a `num_logits_to_keep` input, which neither declares. So a prefill of n tokens ran the head n times (2048 × 65,536
 * weights each) and handed back n × 256 KB of logits to be read from the GPU, to use one row.
 *
 * The rewrite puts a Slice (the last position of axis 1) on the head's input: the head is the MatMul / MatMulNBits that
 * `logits` comes from, through any Identity or Cast. Every other node, and every weight byte, is kept as read; a graph
 * that does not end that way is left alone, with the reason.
 */
import { ELEM, addIntInitializer, producers, readModel, writeModel, type OnnxModel } from './static-kv/onnx-graph-edit';

export type LastLogitsRewrite = { ok: true; onnx: Uint8Array } | { ok: false; reason: string };

const HEADS = new Set(['MatMul', 'MatMulNBits']);
const PASS_THROUGH = new Set(['Identity', 'Cast']);
const SLICED = 'last_logits/hidden';
/** The graph needs no rewrite: it already computes the last position only (or the one transformers.js asks for). */
export const ALREADY_LAST = {
  keepInput: 'the graph already keeps the logits asked for (num_logits_to_keep)',
  onePosition: 'the graph already computes one position',
} as const;

export function keepLastLogits(plain: Uint8Array): LastLogitsRewrite {
  let m: OnnxModel;
  try {
    m = readModel(plain);
  } catch (e) {
    return { ok: false, reason: `not a readable ONNX model (${(e as Error).message})` };
  }
  if (m.inputs.some((i) => i.name === 'num_logits_to_keep')) return { ok: false, reason: ALREADY_LAST.keepInput };
  const out = m.outputs.find((o) => o.name === 'logits');
  if (!out) return { ok: false, reason: 'no "logits" output' };
  if (out.dims.length !== 3) return { ok: false, reason: `"logits" has rank ${out.dims.length}, not [batch, sequence, vocab]` };
  if (out.dims[1] === 1) return { ok: false, reason: ALREADY_LAST.onePosition };
  const prod = producers(m);
  const downstream: string[] = ['logits'];
  let node = prod.get('logits');
  while (node && PASS_THROUGH.has(node.opType) && node.domain === '') {
    downstream.push(node.input[0]!);
    node = prod.get(node.input[0]!);
  }
  if (!node || !HEADS.has(node.opType))
    return { ok: false, reason: `"logits" comes from ${node?.opType ?? 'no node'}, not the LM head` };
  if (m.nodes.some((n) => n.output.includes(SLICED) || n.input.includes(SLICED)))
    return { ok: false, reason: `the graph already names a tensor "${SLICED}"` };
  const head = node;
  const starts = addIntInitializer(m, 'last_logits/starts', ELEM.int64, [1], [-1]);
  const ends = addIntInitializer(m, 'last_logits/ends', ELEM.int64, [1], [Number.MAX_SAFE_INTEGER]);
  const axes = addIntInitializer(m, 'last_logits/axes', ELEM.int64, [1], [1]);
  const slice = {
    opType: 'Slice',
    domain: '',
    input: [head.input[0]!, starts, ends, axes],
    output: [SLICED],
    attrs: new Map(),
    rest: [],
  };
  // Nodes stay in topological order: the slice goes right before the head that reads it.
  m.nodes.splice(m.nodes.indexOf(head), 0, slice);
  head.input[0] = SLICED;
  out.dims = [out.dims[0]!, 1, out.dims[2]!];
  return { ok: true, onnx: writeModel(m, new Set(downstream)) };
}
