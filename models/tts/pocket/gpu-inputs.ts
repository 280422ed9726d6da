/**
 * Inputs that never change between syntheses, uploaded to the GPU once: a voice's flow-LM states (six KV caches,
 * ~49 MB for a preset) and Mimi's fresh states. Without this every chunk hands ORT host arrays that it copies to the
 * GPU before the prefill; on the H200 that copy is about 40 of the prefill's 86 ms (docs/benchmarks.md, "The voice's
 * first audio"). ORT never writes into its inputs, so one upload serves every chunk; the tensors are pinned so that
 * the generator's `releaseStates` leaves them to this cache.
 *
 * Only large float32 tensors move; step counters and flags stay on the host (ORT copies those few bytes itself).
 */
import type { HostTensor } from '../../../core/tts/tensor-data';
import { BUFFER_USAGE, type GpuBufferLike, type GpuDeviceLike } from '../../gpu/webgpu-types';
import type { OrtLike, OrtTensorLike } from './ort-types';
import { pin, toOrt, type Feeds } from './state';

/** Smaller tensors are cheaper to copy than to keep: below this they stay host arrays. */
const MIN_UPLOAD_BYTES = 64 * 1024;
const STORAGE_COPY = BUFFER_USAGE.STORAGE | BUFFER_USAGE.COPY_SRC | BUFFER_USAGE.COPY_DST;
/** Voices kept uploaded at once (the character's voice, a preview, one more); the oldest is freed first. */
const MAX_ENTRIES = 3;

export type GpuUpload = (t: HostTensor) => OrtTensorLike & { dispose(): void };

interface FromGpuBuffer {
  fromGpuBuffer(
    buffer: GpuBufferLike,
    options: { dataType: 'float32'; dims: readonly number[]; dispose: () => void },
  ): OrtTensorLike & { dispose(): void };
}

/** An uploader on ORT's own WebGPU device (a buffer of another device would not bind), or null where there is none. */
export async function ortGpuUpload(ort: OrtLike): Promise<GpuUpload | null> {
  const env = (ort as { env?: { webgpu?: { device?: Promise<GpuDeviceLike> | GpuDeviceLike } } }).env;
  const Tensor = ort.Tensor as unknown as Partial<FromGpuBuffer>;
  const device = await env?.webgpu?.device;
  if (!device || typeof Tensor.fromGpuBuffer !== 'function') return null;
  const fromGpuBuffer = Tensor.fromGpuBuffer.bind(Tensor);
  return (t) => {
    const data = t.data as Float32Array;
    // writeBuffer sizes must be multiples of 4 (always true for float32); storage bindings want 16-byte sizes.
    const buffer = device.createBuffer({ size: Math.ceil(data.byteLength / 16) * 16, usage: STORAGE_COPY });
    device.queue.writeBuffer(buffer, 0, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    return fromGpuBuffer(buffer, { dataType: 'float32', dims: t.dims, dispose: () => buffer.destroy() });
  };
}

/** Per key (a voice's tensors, the Mimi manifest), the feeds with their large tensors on the GPU. */
export class GpuInputs {
  private readonly entries = new Map<object, { feeds: Feeds; gpu: { dispose(): void }[] }>();

  constructor(
    private readonly ort: OrtLike,
    private readonly upload: GpuUpload,
  ) {}

  /** Feeds for `host` (entries in `names` order); the upload happens on the first call for `key`. */
  feeds(key: object, names: readonly string[], host: () => readonly HostTensor[]): Feeds {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key); // re-insert: the map's order is the recency order
      this.entries.set(key, hit);
      return { ...hit.feeds };
    }
    const gpu: { dispose(): void }[] = [];
    const feeds: Feeds = {};
    host().forEach((t, i) => {
      if (t.dtype !== 'float32' || t.data.byteLength < MIN_UPLOAD_BYTES) return void (feeds[names[i]!] = toOrt(this.ort, t));
      const uploaded = pin(this.upload(t));
      gpu.push(uploaded);
      feeds[names[i]!] = uploaded;
    });
    this.entries.set(key, { feeds, gpu });
    while (this.entries.size > MAX_ENTRIES) this.evict(this.entries.keys().next().value!);
    return { ...feeds };
  }

  /** Keys with uploads alive now. */
  get size(): number {
    return this.entries.size;
  }

  /** Frees every upload: the sessions are moving off the GPU, or the model is released. */
  dispose(): void {
    for (const key of [...this.entries.keys()]) this.evict(key);
  }

  private evict(key: object): void {
    const entry = this.entries.get(key);
    this.entries.delete(key);
    for (const t of entry?.gpu ?? []) t.dispose();
  }
}
