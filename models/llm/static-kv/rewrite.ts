/**
 * Load-time rewrite of a recognised LFM2 decoder (recognise.ts) into its decode-only static-KV twin for WebGPU graph
 * capture (docs/llm-static-kv.md; why capture needs each change: bench/stages/capture-bench.ts):
 * - `input_ids` (and `position_ids`) [1, 1]: one token a step, every shape static;
 * - `attention_mask` removed; GroupQueryAttention's `seqlens_k` (positions already cached) and
 *   `total_sequence_length` (that + 1) become int32 [1] inputs, so no mask arithmetic runs on the CPU;
 * - `past_key_values.*` and `present.*` [1, kv_heads, capacity, head_dim]: one buffer bound as both, GQA writes the
 *   new position in place and attends to the first seqlens_k + 1;
 * - each conv layer's output slice starts at −1 (the sequence length folded for one token), its Shape arithmetic gone;
 * - `num_logits_to_keep`, when declared, the constant 1.
 * Same weights, same nodes otherwise: the plain graph's prefill state carries over position for position.
 */
import { ELEM, addIntInitializer, readModel, writeModel, type OnnxModel } from './onnx-graph-edit';
import { recogniseLfm2, type Lfm2Structure } from './recognise';

export const STATIC_INPUTS = { seqlensK: 'seqlens_k', totalSequenceLength: 'total_sequence_length' } as const;

export interface StaticKvGraph {
  ok: true;
  onnx: Uint8Array;
  capacity: number;
  structure: Lfm2Structure;
  /** Nodes of the plain graph that the static one no longer needs (the mask and shape arithmetic). */
  removedNodes: number;
}
export type StaticKvRewrite = StaticKvGraph | { ok: false; reason: string };

export function rewriteForStaticKv(plain: Uint8Array, capacity: number): StaticKvRewrite {
  if (!Number.isInteger(capacity) || capacity < 2)
    return { ok: false, reason: `KV capacity ${capacity} is not a count of positions` };
  let m: OnnxModel;
  try {
    m = readModel(plain);
  } catch (e) {
    return { ok: false, reason: `not a readable ONNX model (${(e as Error).message})` };
  }
  const s = recogniseLfm2(m);
  if (!s.ok) return s;
  if (s.rotaryPositions !== undefined && capacity > s.rotaryPositions) {
    return { ok: false, reason: `KV capacity ${capacity} exceeds the rotary table's ${s.rotaryPositions} positions` };
  }
  const taken = new Set([...m.nodes.flatMap((n) => n.output), ...m.initializers.keys()]);
  for (const name of Object.values(STATIC_INPUTS)) {
    if (taken.has(name) && name !== s.seqlensK && name !== s.totalSequenceLength)
      return { ok: false, reason: `the graph already names a tensor "${name}"` };
  }
  const before = m.nodes.length;

  // Inputs: one token; the lengths fed directly; static caches.
  const dropped = new Set(['attention_mask', 'num_logits_to_keep', ...(s.hasPositionIds ? [] : ['position_ids'])]);
  m.inputs = m.inputs.filter((i) => !dropped.has(i.name));
  for (const v of m.inputs) {
    if (v.name === 'input_ids' || v.name === 'position_ids') v.dims = [1, 1];
    else v.dims = cacheDims(v.dims, v.name.startsWith('past_key_values.') ? capacity : undefined);
  }
  m.inputs.push(
    { name: STATIC_INPUTS.seqlensK, elemType: ELEM.int32, dims: [1] },
    { name: STATIC_INPUTS.totalSequenceLength, elemType: ELEM.int32, dims: [1] },
  );
  for (const v of m.outputs) {
    if (v.name === 'logits') v.dims = [1, 1, v.dims[2] ?? 'vocab'];
    else v.dims = cacheDims(v.dims, v.name.startsWith('present.') ? capacity : undefined);
  }
  if (s.hasNumLogitsToKeep) addIntInitializer(m, 'num_logits_to_keep', ELEM.int64, [], [1]);

  const rename = new Map([
    [s.seqlensK, STATIC_INPUTS.seqlensK],
    [s.totalSequenceLength, STATIC_INPUTS.totalSequenceLength],
  ]);
  for (const n of m.nodes) n.input = n.input.map((i) => rename.get(i) ?? i);
  const minusOne = addIntInitializer(m, 'static_kv/seq_start', ELEM.int64, [1], [-1]);
  for (const slice of s.convSlices) slice.input[1] = minusOne;

  pruneDeadNodes(m);
  const shapeLeft = m.nodes.find((n) => n.opType === 'Shape');
  if (shapeLeft) return { ok: false, reason: `shape arithmetic left after the rewrite (Shape of ${shapeLeft.input[0]})` };
  return { ok: true, onnx: writeModel(m), capacity, structure: s, removedNodes: before - m.nodes.length };
}

/** Batch 1; the sequence axis (2) of a KV tensor becomes the capacity. */
function cacheDims(dims: (number | string)[], capacity: number | undefined): (number | string)[] {
  return dims.map((d, i) => (i === 0 ? 1 : i === 2 && capacity !== undefined ? capacity : d));
}

/** Drops nodes whose outputs nobody reads (graph outputs count as read), then initializers nobody reads. */
function pruneDeadNodes(m: OnnxModel): void {
  const graphOutputs = new Set(m.outputs.map((o) => o.name));
  for (;;) {
    const read = new Set(m.nodes.flatMap((n) => n.input));
    const live = m.nodes.filter((n) => n.output.some((o) => o && (read.has(o) || graphOutputs.has(o))));
    if (live.length === m.nodes.length) break;
    m.nodes = live;
  }
  const read = new Set(m.nodes.flatMap((n) => n.input));
  for (const name of [...m.initializers.keys()]) if (!read.has(name)) m.initializers.delete(name);
}
