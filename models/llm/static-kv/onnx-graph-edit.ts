/**
 * An ONNX model opened for editing its top graph: nodes with their inputs, outputs and attributes; graph inputs and
 * outputs with their shapes; small integer constants (initializers or `Constant` nodes) read as numbers. Everything
 * else is kept as read (onnx-wire.ts). Field numbers from onnx.proto3: ModelProto.graph 7; GraphProto node 1,
 * initializer 5, input 11, output 12, value_info 13; NodeProto input 1, output 2, op_type 4, attribute 5, domain 7;
 * AttributeProto name 1, i 3, t 5, ints 8; ValueInfoProto name 1, type 2 → tensor_type 1 → elem_type 1, shape 2 →
 * dim 1 → dim_value 1 | dim_param 2; TensorProto dims 1, data_type 2, int32_data 5, int64_data 7, name 8, raw_data 9.
 */
import {
  first,
  int,
  ints,
  msgField,
  readFields,
  strField,
  sub,
  text,
  texts,
  writeFields,
  intField,
  type Field,
} from './onnx-wire';

export const ELEM = { float: 1, int32: 6, int64: 7, float16: 10 } as const;

export interface OnnxNode {
  opType: string;
  domain: string;
  input: string[];
  output: string[];
  /** Attribute fields by name. */
  attrs: Map<string, Field[]>;
  /** Every other field (name, doc string, …), kept as read. */
  rest: Field[];
}

export interface OnnxValue {
  name: string;
  elemType: number;
  dims: (number | string)[];
}

export interface OnnxModel {
  model: Field[];
  graph: Field[];
  nodes: OnnxNode[];
  inputs: OnnxValue[];
  outputs: OnnxValue[];
  initializers: Map<string, Field[]>;
}

export function readModel(bytes: Uint8Array): OnnxModel {
  const model = readFields(bytes);
  const g = first(model, 7);
  if (!g) throw new Error('ONNX: no graph');
  const graph = sub(g);
  const nodes = graph.filter((f) => f.n === 1).map((f) => readNode(sub(f)));
  const initializers = new Map<string, Field[]>();
  for (const f of graph) if (f.n === 5) initializers.set(text(first(sub(f), 8)), sub(f));
  const values = (n: number) => graph.filter((f) => f.n === n).map((f) => readValue(sub(f)));
  return { model, graph, nodes, inputs: values(11), outputs: values(12), initializers };
}

function readNode(fields: Field[]): OnnxNode {
  const attrs = new Map<string, Field[]>();
  for (const f of fields) if (f.n === 5) attrs.set(text(first(sub(f), 1)), sub(f));
  return {
    opType: text(first(fields, 4)),
    domain: text(first(fields, 7)),
    input: texts(fields, 1),
    output: texts(fields, 2),
    attrs,
    rest: fields.filter((f) => f.n !== 1 && f.n !== 2 && f.n !== 4 && f.n !== 5 && f.n !== 7),
  };
}

function readValue(fields: Field[]): OnnxValue {
  const tensorType = sub(first(sub(first(fields, 2) ?? { n: 2, w: 2, v: [] }), 1) ?? { n: 1, w: 2, v: [] });
  const shape = first(tensorType, 2);
  const dims = shape
    ? sub(shape)
        .filter((f) => f.n === 1)
        .map((d) => {
          const df = sub(d);
          const value = first(df, 1);
          return value ? int(value)! : text(first(df, 2));
        })
    : [];
  return { name: text(first(fields, 1)), elemType: int(first(tensorType, 1)) ?? 0, dims };
}

/** Integer attribute `name` of a node (undefined when absent). */
export function attrInt(node: OnnxNode, name: string): number | undefined {
  const a = node.attrs.get(name);
  return a ? int(first(a, 3)) : undefined;
}

export function attrInts(node: OnnxNode, name: string): number[] | undefined {
  const a = node.attrs.get(name);
  return a ? ints(a, 8) : undefined;
}

/** The values of a small int64/int32 constant tensor (TensorProto fields). */
function tensorInts(t: Field[]): { dims: number[]; values: number[] } | undefined {
  const type = int(first(t, 2));
  if (type !== ELEM.int64 && type !== ELEM.int32) return undefined;
  const dims = ints(t, 1);
  const raw = first(t, 9);
  if (raw) {
    const b = raw.v as Uint8Array;
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const size = type === ELEM.int64 ? 8 : 4;
    const values = Array.from({ length: b.byteLength / size }, (_, i) =>
      size === 8 ? Number(view.getBigInt64(i * 8, true)) : view.getInt32(i * 4, true),
    );
    return { dims, values };
  }
  return { dims, values: ints(t, type === ELEM.int64 ? 7 : 5) };
}

/** A map from tensor name to its producing node. */
export function producers(m: OnnxModel): Map<string, OnnxNode> {
  const p = new Map<string, OnnxNode>();
  for (const n of m.nodes) for (const o of n.output) if (o) p.set(o, n);
  return p;
}

/** A map from tensor name to the nodes reading it. */
export function consumers(m: OnnxModel): Map<string, OnnxNode[]> {
  const c = new Map<string, OnnxNode[]>();
  for (const n of m.nodes) for (const i of n.input) if (i) c.set(i, [...(c.get(i) ?? []), n]);
  return c;
}

/** The integer values of tensor `name` when it is a constant (initializer or `Constant` node), else undefined. */
export function constInts(
  m: OnnxModel,
  prod: Map<string, OnnxNode>,
  name: string,
): { dims: number[]; values: number[] } | undefined {
  const init = m.initializers.get(name);
  if (init) return tensorInts(init);
  const node = prod.get(name);
  if (node?.opType !== 'Constant') return undefined;
  const value = node.attrs.get('value');
  if (value) {
    const t = first(value, 5);
    return t ? tensorInts(sub(t)) : undefined;
  }
  const one = attrInt(node, 'value_int');
  if (one !== undefined) return { dims: [], values: [one] };
  const many = attrInts(node, 'value_ints');
  return many ? { dims: [many.length], values: many } : undefined;
}

/** A new int64 or int32 initializer. */
export function addIntInitializer(m: OnnxModel, name: string, elem: number, dims: number[], values: number[]): string {
  const raw = new Uint8Array(values.length * (elem === ELEM.int64 ? 8 : 4));
  const view = new DataView(raw.buffer);
  values.forEach((v, i) => (elem === ELEM.int64 ? view.setBigInt64(i * 8, BigInt(v), true) : view.setInt32(i * 4, v, true)));
  m.initializers.set(name, [...dims.map((d) => intField(1, d)), intField(2, elem), strField(8, name), { n: 9, w: 2, v: raw }]);
  return name;
}

function writeValue(v: OnnxValue): Field {
  const dims = v.dims.map((d) => msgField(1, [typeof d === 'number' ? intField(1, d) : strField(2, d)]));
  const tensorType = [intField(1, v.elemType), msgField(2, dims)];
  return msgField(0, [strField(1, v.name), msgField(2, [msgField(1, tensorType)])]);
}

function writeNode(n: OnnxNode): Field[] {
  return [
    ...n.input.map((s) => strField(1, s)),
    ...n.output.map((s) => strField(2, s)),
    strField(4, n.opType),
    ...[...n.attrs.values()].map((a) => msgField(5, a)),
    ...(n.domain ? [strField(7, n.domain)] : []),
    ...n.rest,
  ];
}

/**
 * The model as bytes: the graph's nodes, inputs, outputs and initializers as edited, value_info kept only for
 * tensors some node still produces (its old shapes may no longer hold otherwise) and not in `reshaped` (tensors whose
 * shape the edit changed), every other field as read.
 */
export function writeModel(m: OnnxModel, reshaped: ReadonlySet<string> = new Set()): Uint8Array {
  const produced = new Set(m.nodes.flatMap((n) => n.output));
  const keptInfo = m.graph.filter((f) => {
    if (f.n !== 13) return false;
    const name = text(first(sub(f), 1));
    return produced.has(name) && !reshaped.has(name);
  });
  const graph: Field[] = [
    ...m.nodes.map((n) => msgField(1, writeNode(n))),
    ...m.graph.filter((f) => ![1, 5, 11, 12, 13].includes(f.n)),
    ...[...m.initializers.values()].map((t) => msgField(5, t)),
    ...m.inputs.map((v) => ({ ...writeValue(v), n: 11 })),
    ...m.outputs.map((v) => ({ ...writeValue(v), n: 12 })),
    ...keptInfo,
  ];
  const model = m.model.map((f) => (f.n === 7 ? msgField(7, graph) : f));
  return writeFields(model);
}
