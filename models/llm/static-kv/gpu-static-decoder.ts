/**
 * The static-KV decode step on WebGPU with graph capture (docs/llm-static-kv.md, "The product wiring"): every input
 * and output is a GPU buffer that stays the same for the session's life, because a captured graph replays exactly the
 * buffers it recorded. Each KV tensor is one capacity-sized buffer bound as both past and present (GroupQueryAttention
 * writes the new position in place); each conv state's present goes to its own buffer and is copied over the past
 * after the run, because ORT runs the capturing step twice and an in-place shift would shift twice. Token and
 * lengths are written with queue.writeBuffer, the logits copied back through a staging buffer.
 */
import { BUFFER_USAGE, MAP_MODE_READ, type GpuBufferLike, type GpuDeviceLike } from '../../gpu/webgpu-types';
import {
  isKv,
  isState,
  presentOf,
  type Feeds,
  type OrtClasses,
  type OrtSession,
  type OrtTensor,
  type StaticDecoder,
} from './static-decoder';

const STORAGE = BUFFER_USAGE.STORAGE | BUFFER_USAGE.COPY_SRC | BUFFER_USAGE.COPY_DST;
const align = (bytes: number) => Math.ceil(bytes / 16) * 16;

interface StateBuffer {
  name: string;
  dtype: 'float32' | 'float16';
  dims: number[];
  bytes: number;
  buf: GpuBufferLike;
  tensor: OrtTensor;
  /** Conv states: where the run writes the present before it is copied over `buf`. */
  out?: { buf: GpuBufferLike; tensor: OrtTensor };
}

type GpuTensorFactory = OrtClasses['Tensor'] & {
  fromGpuBuffer(buffer: unknown, options: { dataType: string; dims: readonly number[]; dispose?: () => void }): OrtTensor;
};

export class GpuStaticDecoder implements StaticDecoder {
  readonly mode = 'captured';
  private states: StateBuffer[] = [];
  private readonly owned: GpuBufferLike[] = [];
  private readonly io: Record<'ids' | 'seq' | 'total' | 'position', { buf: GpuBufferLike; tensor: OrtTensor }>;
  private readonly logits: { buf: GpuBufferLike; tensor: OrtTensor };
  private readonly staging: GpuBufferLike;

  constructor(
    private readonly ort: OrtClasses,
    private readonly session: OrtSession,
    private readonly device: GpuDeviceLike,
    readonly capacity: number,
    private readonly vocab: number,
  ) {
    this.io = {
      ids: this.small('int64', 8, [1, 1]),
      seq: this.small('int32', 4, [1]),
      total: this.small('int32', 4, [1]),
      position: this.small('int64', 8, [1, 1]),
    };
    this.logits = this.small('float32', vocab * 4, [1, 1, vocab]);
    this.staging = this.buffer(vocab * 4, BUFFER_USAGE.MAP_READ | BUFFER_USAGE.COPY_DST);
  }

  private buffer(bytes: number, usage = STORAGE): GpuBufferLike {
    const buf = this.device.createBuffer({ size: align(bytes), usage });
    this.owned.push(buf);
    return buf;
  }

  private small(dataType: string, bytes: number, dims: number[]) {
    const buf = this.buffer(bytes);
    return { buf, tensor: (this.ort.Tensor as GpuTensorFactory).fromGpuBuffer(buf, { dataType, dims }) };
  }

  /** The buffers are made on the first load, from the cache's dtypes and shapes, and kept: the capture binds them. */
  private allocate(cache: Readonly<Feeds>): void {
    for (const name of this.session.inputNames.filter(isState)) {
      const t = cache[name];
      if (!t) throw new Error(`the plain cache has no ${name}`);
      const dtype = t.type as 'float32' | 'float16';
      const dims = isKv(name) ? [1, t.dims[1]!, this.capacity, t.dims[3]!] : [...t.dims];
      const bytes = dims.reduce((a, b) => a * b, 1) * (dtype === 'float16' ? 2 : 4);
      const state = { name, dtype, dims, bytes, ...this.small(dtype, bytes, dims) };
      this.states.push(isKv(name) ? state : { ...state, out: this.small(dtype, bytes, dims) });
    }
  }

  async load(cache: Readonly<Feeds>, pos: number): Promise<void> {
    if (this.states.length === 0) this.allocate(cache);
    const enc = this.device.createCommandEncoder();
    for (const s of this.states) {
      const t = cache[s.name]!;
      const eb = s.dtype === 'float16' ? 2 : 4;
      const heads = isKv(s.name) ? s.dims[1]! : 1;
      const row = isKv(s.name) ? pos * s.dims[3]! * eb : s.bytes; // bytes of one head's filled positions
      const stride = isKv(s.name) ? this.capacity * s.dims[3]! * eb : s.bytes;
      if (row === 0) continue;
      if (t.location === 'gpu-buffer') {
        for (let h = 0; h < heads; h++) enc.copyBufferToBuffer(t.gpuBuffer as never, h * row, s.buf, h * stride, row);
      } else {
        const bytes = new Uint8Array((t.data as Float32Array).buffer, (t.data as Float32Array).byteOffset, heads * row);
        for (let h = 0; h < heads; h++) this.device.queue.writeBuffer(s.buf, h * stride, bytes.subarray(h * row, (h + 1) * row));
      }
    }
    this.device.queue.submit([enc.finish()]);
  }

  async step(token: number, pos: number): Promise<Float32Array> {
    const q = this.device.queue;
    q.writeBuffer(this.io.ids.buf, 0, new Uint8Array(BigInt64Array.of(BigInt(token)).buffer));
    q.writeBuffer(this.io.seq.buf, 0, new Uint8Array(Int32Array.of(pos).buffer));
    q.writeBuffer(this.io.total.buf, 0, new Uint8Array(Int32Array.of(pos + 1).buffer));
    q.writeBuffer(this.io.position.buf, 0, new Uint8Array(BigInt64Array.of(BigInt(pos)).buffer));
    const feeds: Feeds = {
      input_ids: this.io.ids.tensor,
      seqlens_k: this.io.seq.tensor,
      total_sequence_length: this.io.total.tensor,
      ...(this.session.inputNames.includes('position_ids') ? { position_ids: this.io.position.tensor } : {}),
    };
    const fetches: Feeds = { logits: this.logits.tensor };
    for (const s of this.states) {
      feeds[s.name] = s.tensor;
      fetches[presentOf(s.name)] = s.out?.tensor ?? s.tensor;
    }
    await this.session.run(feeds, fetches as never);
    const enc = this.device.createCommandEncoder();
    for (const s of this.states) if (s.out) enc.copyBufferToBuffer(s.out.buf, 0, s.buf, 0, s.bytes);
    enc.copyBufferToBuffer(this.logits.buf, 0, this.staging, 0, this.vocab * 4);
    q.submit([enc.finish()]);
    await this.staging.mapAsync(MAP_MODE_READ);
    const logits = new Float32Array(this.staging.getMappedRange().slice(0, this.vocab * 4));
    this.staging.unmap();
    return logits;
  }

  async exportCache(length: number): Promise<Feeds> {
    const enc = this.device.createCommandEncoder();
    const out: Feeds = {};
    for (const s of this.states) {
      const eb = s.dtype === 'float16' ? 2 : 4;
      const dims = isKv(s.name) ? [1, s.dims[1]!, length, s.dims[3]!] : s.dims;
      const bytes = dims.reduce((a, b) => a * b, 1) * eb;
      const buf = this.device.createBuffer({ size: align(bytes), usage: STORAGE });
      if (isKv(s.name)) {
        const row = length * s.dims[3]! * eb;
        for (let h = 0; h < s.dims[1]!; h++)
          enc.copyBufferToBuffer(s.buf, h * this.capacity * s.dims[3]! * eb, buf, h * row, row);
      } else enc.copyBufferToBuffer(s.buf, 0, buf, 0, s.bytes);
      out[s.name] = (this.ort.Tensor as GpuTensorFactory).fromGpuBuffer(buf, {
        dataType: s.dtype,
        dims,
        dispose: () => buf.destroy(),
      });
    }
    this.device.queue.submit([enc.finish()]);
    return out;
  }

  async release(): Promise<void> {
    await this.session.release();
    for (const b of this.owned) b.destroy();
    this.owned.length = 0;
    this.states = [];
  }
}

/**
 * Session options that turn graph capture on in the WebGPU EP only (bench/stages/capture-bench.ts found why): with a
 * plain `enableGraphCapture: true` this onnxruntime-web build also binds the outputs once in its JS layer, and the
 * second run with pre-allocated outputs (which GroupQueryAttention needs under capture) then fails. The flag reads
 * true where ORT builds the EP options and the session config (its first four reads, in that order, in 1.31-dev) and
 * false where it sets up its JS binding (the fifth). Counted, not matched by function name: the shipped build is
 * minified. Should a later build read it otherwise, the session fails or the load-time check differs, and the
 * product decodes on the plain path with that reason.
 */
export function epOnlyCaptureOptions(): Record<string, unknown> {
  let reads = 0;
  const o: Record<string, unknown> = { executionProviders: [{ name: 'webgpu' }] };
  Object.defineProperty(o, 'enableGraphCapture', { enumerable: true, get: () => ++reads <= 4 });
  return o;
}
