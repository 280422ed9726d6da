/**
 * Graph writer for real-size, random-weight benchmark graphs. Built on tests/fixtures/onnx/builder.ts (node, value
 * info, float16 bits); adds what large graphs need: seeded random initializers written as raw bytes (inline or as one
 * external-data file, like the hub's `model_q4.onnx` + `model_q4.onnx_data`), contrib-op nodes (`com.microsoft`),
 * and the linear-layer formats the real exports use (fp32/fp16 MatMul, 4-bit MatMulNBits, int8 dynamic quantisation).
 *
 * Weights are random but scaled (variance ≈ 1/K per input) so activations stay O(1) through many layers in fp16 too;
 * the runner rejects outputs that are all zero or non-finite.
 */
import onnxProto from 'onnx-proto';
import {
  dtypeCode,
  float16Bits,
  graph,
  node,
  tensor,
  type AttrValue,
  type DType,
  type ValueSpec,
} from '../../tests/fixtures/onnx/builder';

const { onnx } = onnxProto;

export type Act = 'float32' | 'float16';
/** How a linear layer's weight is stored and computed. */
export type LinearFormat = 'float' | 'q4' | 'int8';

/** xorshift128: fast, seeded, good enough for random weights. */
export class Rng {
  private s = new Uint32Array(4);
  constructor(seed: number) {
    let x = seed >>> 0 || 0x9e3779b9;
    for (let i = 0; i < 4; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      this.s[i] = x >>> 0;
    }
  }
  u32(): number {
    const s = this.s;
    let t = s[3]!;
    const u = s[0]!;
    s[3] = s[2]!;
    s[2] = s[1]!;
    s[1] = u;
    t ^= t << 11;
    t ^= t >>> 8;
    s[0] = (t ^ u ^ (u >>> 19)) >>> 0;
    return s[0]!;
  }
  /** Uniform in [-1, 1). */
  sym(): number {
    return this.u32() / 2147483648 - 1;
  }
  fillBytes(out: Uint8Array): void {
    const n4 = out.length >>> 2;
    const u = new Uint32Array(out.buffer, out.byteOffset, n4);
    for (let i = 0; i < n4; i++) u[i] = this.u32();
    for (let i = n4 * 4; i < out.length; i++) out[i] = this.u32() & 0xff;
  }
}

/** float32 → IEEE half bits, vectorised over a typed array. */
export function toFloat16(src: Float32Array): Uint16Array {
  const out = new Uint16Array(src.length);
  const u = new Uint32Array(src.buffer, src.byteOffset, src.length);
  for (let i = 0; i < src.length; i++) {
    const x = u[i]!;
    const sign = (x >>> 16) & 0x8000;
    const exp = ((x >>> 23) & 0xff) - 112;
    if (exp === 143 && (x & 0x7fffff) !== 0)
      out[i] = 0x7e00; // NaN stays NaN
    else if (exp <= 0)
      out[i] = exp < -10 ? sign : sign | (((x & 0x7fffff) | 0x800000) >>> (14 - exp)); // subnormal
    else if (exp >= 31) out[i] = sign | 0x7c00;
    else out[i] = sign | (exp << 10) | (((x & 0x7fffff) + 0x1000) >>> 13);
  }
  return out;
}

export function fromFloat16(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

export interface WeightStats {
  /** Bytes of all initializers (what a decode step reads at most). */
  bytes: number;
  count: number;
}

export interface GraphFiles {
  onnx: Uint8Array;
  /** External-data file name and bytes (when `external` was set). */
  external?: { path: string; data: Uint8Array };
  nodes: number;
  opCounts: Record<string, number>;
  weights: WeightStats;
}

export interface GraphOptions {
  name: string;
  act: Act;
  seed: number;
  /** Write initializers larger than this many bytes to one external-data file of this name. */
  external?: string;
  opset?: number;
}

/**
 * One graph under construction. `op()` appends a node and returns its (unique) output name, so graph code reads like
 * the arithmetic it implements.
 */
export class G {
  readonly nodes: onnxProto.onnx.INodeProto[] = [];
  readonly inits: onnxProto.onnx.ITensorProto[] = [];
  readonly inputs: ValueSpec[] = [];
  readonly outputs: ValueSpec[] = [];
  readonly rng: Rng;
  private n = 0;
  private chunks: Uint8Array[] = [];
  private extBytes = 0;
  private weightBytes = 0;
  private consts = new Map<string, string>();

  constructor(readonly opts: GraphOptions) {
    this.rng = new Rng(opts.seed);
  }

  get act(): Act {
    return this.opts.act;
  }

  private fresh(tag: string): string {
    this.n += 1;
    return `${tag}_${this.n}`;
  }

  input(name: string, dtype: DType, dims: (number | string)[]): string {
    this.inputs.push({ name, dtype, dims });
    return name;
  }

  output(name: string, dtype: DType, dims: (number | string)[]): void {
    this.outputs.push({ name, dtype, dims });
  }

  op(type: string, inputs: string[], attrs: Record<string, AttrValue> = {}, out?: string, domain?: string): string {
    return this.opN(type, inputs, 1, attrs, domain, out ? [out] : undefined)[0]!;
  }

  /** A node with several outputs; pass '' in `names` for outputs nobody reads. */
  opN(
    type: string,
    inputs: string[],
    count: number,
    attrs: Record<string, AttrValue> = {},
    domain?: string,
    names?: string[],
  ): string[] {
    const outs = names ?? Array.from({ length: count }, () => this.fresh(type));
    const n = node(type, inputs, outs, attrs);
    n.name = this.fresh(`n_${type}`);
    if (domain) n.domain = domain;
    this.nodes.push(n);
    return outs;
  }

  ms(type: string, inputs: string[], attrs: Record<string, AttrValue> = {}, out?: string): string {
    return this.op(type, inputs, attrs, out, 'com.microsoft');
  }

  /** A small constant (deduplicated). */
  c(dtype: DType, values: number[], dims: number[] = []): string {
    const key = `${dtype}|${dims.join(',')}|${values.join(',')}`;
    const hit = this.consts.get(key);
    if (hit) return hit;
    const name = this.fresh('c');
    this.inits.push(tensor(name, dtype, dims, values));
    this.consts.set(key, name);
    return name;
  }

  i64(values: number[], dims: number[] = [values.length]): string {
    return this.c('int64', values, dims);
  }

  /** A float constant in the graph's activation dtype (fp16 keeps subnormals such as 1e-5). */
  f(values: number[], dims: number[] = []): string {
    if (this.act === 'float32') return this.c('float32', values, dims);
    const key = `f16raw|${dims.join(',')}|${values.join(',')}`;
    const hit = this.consts.get(key);
    if (hit) return hit;
    const name = this.fresh('c');
    this.inits.push({
      name,
      dataType: dtypeCode('float16'),
      dims,
      rawData: new Uint8Array(toFloat16(Float32Array.from(values)).buffer),
    });
    this.consts.set(key, name);
    return name;
  }

  /** A raw-bytes initializer; large ones go to the external-data file. */
  raw(dtype: DType, dims: number[], bytes: Uint8Array, tag = 'w'): string {
    const name = this.fresh(tag);
    const t: onnxProto.onnx.ITensorProto = { name, dataType: dtypeCode(dtype), dims };
    this.weightBytes += bytes.byteLength;
    if (this.opts.external && bytes.byteLength >= 1024) {
      const pad = (64 - (this.extBytes % 64)) % 64;
      if (pad) {
        this.chunks.push(new Uint8Array(pad));
        this.extBytes += pad;
      }
      t.dataLocation = onnx.TensorProto.DataLocation.EXTERNAL;
      t.externalData = [
        { key: 'location', value: this.opts.external },
        { key: 'offset', value: String(this.extBytes) },
        { key: 'length', value: String(bytes.byteLength) },
      ];
      this.chunks.push(bytes);
      this.extBytes += bytes.byteLength;
    } else {
      t.rawData = bytes;
    }
    this.inits.push(t);
    return name;
  }

  /** Random float weights, uniform with the given standard deviation, in `dtype` (default: activation dtype). */
  randn(dims: number[], std: number, dtype: 'float32' | 'float16' = this.act, offset = 0): string {
    const n = dims.reduce((a, b) => a * b, 1);
    const f = new Float32Array(n);
    const a = std * Math.sqrt(3);
    for (let i = 0; i < n; i++) f[i] = offset + a * this.rng.sym();
    const bytes = dtype === 'float16' ? new Uint8Array(toFloat16(f).buffer) : new Uint8Array(f.buffer);
    return this.raw(dtype, dims, bytes);
  }

  /** A constant-valued float tensor (norm gains etc.). */
  fill(dims: number[], value: number, dtype: 'float32' | 'float16' = this.act): string {
    const n = dims.reduce((a, b) => a * b, 1);
    const f = new Float32Array(n).fill(value);
    const bytes = dtype === 'float16' ? new Uint8Array(toFloat16(f).buffer) : new Uint8Array(f.buffer);
    return this.raw(dtype, dims, bytes, 'g');
  }

  /**
   * y = x·W (+ b), x [..., K] → [..., N]. Formats:
   * - 'float': MatMul with a [K, N] weight in the activation dtype;
   * - 'q4': MatMulNBits (4-bit, block 32, symmetric: no zero points), scales in the activation dtype;
   * - 'int8': what `quantize_dynamic(QInt8, ['MatMul'])` emits: DynamicQuantizeLinear → MatMulInteger → Cast → Mul.
   */
  linear(x: string, K: number, N: number, fmt: LinearFormat, opts: { bias?: boolean; accuracyLevel?: number } = {}): string {
    let y: string;
    if (fmt === 'q4') {
      const block = 32;
      if (K % block !== 0) throw new Error(`MatMulNBits needs K % 32 == 0 (K=${K})`);
      const nBlocks = K / block;
      const packed = new Uint8Array(N * nBlocks * (block / 2));
      this.rng.fillBytes(packed);
      const B = this.raw('uint8', [N, nBlocks, block / 2], packed, 'q4');
      // Values are (q − 8)·s with q uniform in 0..15: variance 21.25·s²; aim for output variance ≈ input variance.
      const s = 1 / Math.sqrt(21.25 * K);
      const scales = this.randn([N * nBlocks], s * 0.1, this.act, s);
      y = this.ms('MatMulNBits', [x, B, scales], { K, N, bits: 4, block_size: block, accuracy_level: opts.accuracyLevel ?? 4 });
    } else if (fmt === 'int8') {
      const q = new Uint8Array(K * N);
      this.rng.fillBytes(q);
      const W = this.raw('int8', [K, N], q, 'i8');
      const ws = this.c('float32', [1 / (73.9 * Math.sqrt(K))]); // int8 uniform: std ≈ 73.9
      const wzp = this.c('int8', [0]);
      const [xq, xs, xzp] = this.opN('DynamicQuantizeLinear', [x], 3);
      const acc = this.op('MatMulInteger', [xq!, W, xzp!, wzp]);
      const scale = this.op('Mul', [xs!, ws]);
      y = this.op('Mul', [this.op('Cast', [acc], { to: dtypeCode('float32') }), scale]);
    } else {
      y = this.op('MatMul', [x, this.randn([K, N], 1 / Math.sqrt(K))]);
    }
    if (opts.bias) y = this.op('Add', [y, this.randn([N], 0.02)]);
    return y;
  }

  layerNorm(x: string, C: number, eps = 1e-5): string {
    return this.op('LayerNormalization', [x, this.fill([C], 1), this.fill([C], 0)], { axis: -1, epsilon: { float: eps } });
  }

  /** RMSNorm as the fused ORT op the optimised exports use (SimplifiedLayerNormalization). */
  rmsNorm(x: string, C: number, eps = 1e-5): string {
    return this.op('SimplifiedLayerNormalization', [x, this.fill([C], 1)], { axis: -1, epsilon: { float: eps }, stash_type: 1 });
  }

  /** Residual add + RMSNorm fused (SkipSimplifiedLayerNormalization): returns [normed, sum]. */
  skipRmsNorm(x: string, skip: string, C: number, eps = 1e-5): [string, string] {
    const y = this.fresh('ssln');
    const sum = this.fresh('ssln_sum');
    this.opN('SkipSimplifiedLayerNormalization', [x, skip, this.fill([C], 1)], 4, { epsilon: { float: eps } }, 'com.microsoft', [
      y,
      '',
      '',
      sum,
    ]);
    return [y, sum];
  }

  /** GELU written the way torch exports it (x·½·(1+erf(x/√2))); ORT fuses it into one Gelu kernel. */
  gelu(x: string): string {
    const e = this.op('Erf', [this.op('Div', [x, this.f([Math.SQRT2])])]);
    return this.op('Mul', [this.op('Mul', [x, this.op('Add', [e, this.f([1])])]), this.f([0.5])]);
  }

  silu(x: string): string {
    return this.op('Mul', [x, this.op('Sigmoid', [x])]);
  }

  /** Dimension `axis` of `x` as an int64 [1] vector. */
  dim(x: string, axis: number): string {
    return this.op('Gather', [this.op('Shape', [x]), this.i64([axis])], { axis: 0 });
  }

  reshape(x: string, shape: number[] | string): string {
    return this.op('Reshape', [x, typeof shape === 'string' ? shape : this.i64(shape)]);
  }

  transpose(x: string, perm: number[]): string {
    return this.op('Transpose', [x], { perm });
  }

  /**
   * Rotary embedding (rotate-half form) on x [B, L, heads, D] over its first `rot` channels, positions `pos` (float
   * vector [L] in the activation dtype), base `theta`. Written with plain ops, as torch exports it.
   */
  rope(x: string, pos: string, D: number, rot: number, theta: number): string {
    const h = rot / 2;
    const inv = Array.from({ length: h }, (_, i) => 1 / theta ** ((2 * i) / rot));
    const ang = this.op('Mul', [this.op('Unsqueeze', [pos, this.i64([1])]), this.f(inv, [1, h])]); // [L, h]
    const a3 = this.op('Unsqueeze', [ang, this.i64([1])]); // [L, 1, h]
    const cos = this.op('Cos', [a3]);
    const sin = this.op('Sin', [a3]);
    const parts = rot === D ? [h, h] : [h, h, D - rot];
    const split = this.opN('Split', [x, this.i64(parts)], parts.length, { axis: 3 });
    const [x1, x2] = split as [string, string];
    const r1 = this.op('Sub', [this.op('Mul', [x1, cos]), this.op('Mul', [x2, sin])]);
    const r2 = this.op('Add', [this.op('Mul', [x2, cos]), this.op('Mul', [x1, sin])]);
    return this.op('Concat', rot === D ? [r1, r2] : [r1, r2, split[2]!], { axis: 3 });
  }

  /** softmax(q·kᵀ/√d + mask)·v for q [B, h, L, d], k/v [B, h, T, d]; returns [B, h, L, d]. */
  attention(q: string, k: string, v: string, d: number, mask?: string): string {
    let s = this.op('Mul', [this.op('MatMul', [q, this.transpose(k, [0, 1, 3, 2])]), this.f([1 / Math.sqrt(d)])]);
    if (mask) s = this.op('Add', [s, mask]);
    return this.op('MatMul', [this.op('Softmax', [s], { axis: -1 }), v]);
  }

  build(): GraphFiles {
    const model = onnx.ModelProto.create({
      irVersion: 8,
      producerName: 'sidetalk-bench',
      opsetImport: [
        { domain: '', version: this.opts.opset ?? 17 },
        { domain: 'com.microsoft', version: 1 },
      ],
      graph: graph({
        name: this.opts.name,
        inputs: this.inputs,
        outputs: this.outputs,
        nodes: this.nodes,
        initializers: this.inits,
      }),
    });
    const bytes = onnx.ModelProto.encode(model).finish();
    const opCounts: Record<string, number> = {};
    for (const n of this.nodes) opCounts[n.opType!] = (opCounts[n.opType!] ?? 0) + 1;
    const files: GraphFiles = {
      onnx: bytes,
      nodes: this.nodes.length,
      opCounts,
      weights: { bytes: this.weightBytes, count: this.inits.length },
    };
    if (this.opts.external) {
      const data = new Uint8Array(this.extBytes);
      let off = 0;
      for (const c of this.chunks) {
        data.set(c, off);
        off += c.byteLength;
      }
      this.chunks = [];
      files.external = { path: this.opts.external, data };
    }
    return files;
  }
}

export { float16Bits };
