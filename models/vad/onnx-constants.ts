/**
 * Reads the float32 tensors of an ONNX file's `Constant` nodes, in every graph and sub-graph (`If` branches), by
 * walking the protobuf wire format directly: no onnxruntime, no protobuf library. Silero VAD keeps all its weights
 * that way, one set per sample-rate branch (docs/models.md § Silero VAD in script).
 *
 * Field numbers (onnx.proto3): ModelProto.graph 7; GraphProto.node 1, initializer 5; NodeProto.output 2, op_type 4,
 * attribute 5; AttributeProto.name 1, t 5, g 6, graphs 11; TensorProto.dims 1, data_type 2, float_data 4, name 8,
 * raw_data 9. data_type 1 is FLOAT.
 */

export interface FloatConstant {
  readonly dims: readonly number[];
  readonly data: Float32Array;
}

const FLOAT = 1;

class Reader {
  pos: number;
  constructor(
    readonly buf: Uint8Array,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  varint(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (this.pos >= this.end) throw new Error('ONNX: truncated varint');
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 128;
    }
  }

  /** Returns [field, wireType]. */
  tag(): [number, number] {
    const t = this.varint();
    return [Math.floor(t / 8), t % 8];
  }

  /** The bounds of a length-delimited field's payload; the reader moves past it. */
  bytes(): [number, number] {
    const len = this.varint();
    const start = this.pos;
    this.pos += len;
    if (this.pos > this.end) throw new Error('ONNX: truncated field');
    return [start, this.pos];
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`ONNX: unsupported wire type ${wire}`);
  }

  sub([start, end]: [number, number]): Reader {
    return new Reader(this.buf, start, end);
  }

  text([start, end]: [number, number]): string {
    return new TextDecoder().decode(this.buf.subarray(start, end));
  }
}

function readTensor(r: Reader): { dims: number[]; dataType: number; data: Float32Array | null } {
  const dims: number[] = [];
  let dataType = 0;
  let raw: [number, number] | null = null;
  const floats: number[] = [];
  while (!r.done) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === 0) dims.push(r.varint());
    else if (field === 1 && wire === 2) {
      const p = r.sub(r.bytes());
      while (!p.done) dims.push(p.varint());
    } else if (field === 2 && wire === 0) dataType = r.varint();
    else if (field === 4 && wire === 2) {
      const [s, e] = r.bytes();
      const view = new DataView(r.buf.buffer, r.buf.byteOffset + s, e - s);
      for (let o = 0; o + 4 <= e - s; o += 4) floats.push(view.getFloat32(o, true));
    } else if (field === 4 && wire === 5) {
      floats.push(new DataView(r.buf.buffer, r.buf.byteOffset + r.pos, 4).getFloat32(0, true));
      r.pos += 4;
    } else if (field === 9 && wire === 2) raw = r.bytes();
    else r.skip(wire);
  }
  if (dataType !== FLOAT) return { dims, dataType, data: null };
  const count = dims.reduce((a, b) => a * b, 1);
  let data: Float32Array;
  if (raw) {
    // Copy: raw_data sits at any byte offset, and the caller keeps the tensor after the file bytes are dropped.
    const view = new DataView(r.buf.buffer, r.buf.byteOffset + raw[0], raw[1] - raw[0]);
    data = new Float32Array((raw[1] - raw[0]) / 4);
    for (let i = 0; i < data.length; i++) data[i] = view.getFloat32(i * 4, true);
  } else data = Float32Array.from(floats);
  if (data.length !== count) throw new Error(`ONNX: tensor holds ${data.length} values, its dims say ${count}`);
  return { dims, dataType, data };
}

function readNode(r: Reader, out: Map<string, FloatConstant>): void {
  const outputs: string[] = [];
  let opType = '';
  const attributes: Reader[] = [];
  while (!r.done) {
    const [field, wire] = r.tag();
    if (field === 2 && wire === 2) outputs.push(r.text(r.bytes()));
    else if (field === 4 && wire === 2) opType = r.text(r.bytes());
    else if (field === 5 && wire === 2) attributes.push(r.sub(r.bytes()));
    else r.skip(wire);
  }
  for (const a of attributes) {
    let name = '';
    let tensor: ReturnType<typeof readTensor> | null = null;
    while (!a.done) {
      const [field, wire] = a.tag();
      if (field === 1 && wire === 2) name = a.text(a.bytes());
      else if (field === 5 && wire === 2) tensor = readTensor(a.sub(a.bytes()));
      else if ((field === 6 || field === 11) && wire === 2) readGraph(a.sub(a.bytes()), out);
      else a.skip(wire);
    }
    if (opType === 'Constant' && name === 'value' && tensor?.data && outputs[0]) {
      out.set(outputs[0], { dims: tensor.dims, data: tensor.data });
    }
  }
}

function readGraph(r: Reader, out: Map<string, FloatConstant>): void {
  while (!r.done) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === 2) readNode(r.sub(r.bytes()), out);
    else r.skip(wire);
  }
}

/** Every float32 `Constant` output in the model, keyed by its output name. */
export function readFloatConstants(model: Uint8Array): Map<string, FloatConstant> {
  const out = new Map<string, FloatConstant>();
  const r = new Reader(model);
  let sawGraph = false;
  while (!r.done) {
    const [field, wire] = r.tag();
    if (field === 7 && wire === 2) {
      readGraph(r.sub(r.bytes()), out);
      sawGraph = true;
    } else r.skip(wire);
  }
  if (!sawGraph) throw new Error('ONNX: no graph in the model file');
  return out;
}
