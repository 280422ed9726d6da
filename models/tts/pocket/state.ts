/**
 * State threading by manifest (pocket-tts.md §3.2–3.4): fresh states from each entry's fill, out_state_i → state_i
 * after every call, and the conversion between a voice (KV-cache prefix + step) and the 18 flow-LM states.
 */
import { elementCount, type StateEntry } from '../../../core/tts/bundle-manifest';
import { allocate, type HostTensor } from '../../../core/tts/tensor-data';
import type { OrtLike, OrtTensorLike } from './ort-types';

export type Feeds = Record<string, OrtTensorLike>;

export class StateError extends Error {
  override name = 'StateError';
}

export function freshHostState(e: StateEntry): HostTensor {
  const data = allocate(e.dtype, elementCount(e.shape));
  if (e.fill === 'nan' && data instanceof Float32Array) data.fill(NaN);
  if (e.fill === 'ones') {
    if (data instanceof BigInt64Array) data.fill(1n);
    else data.fill(1);
  }
  return { dtype: e.dtype, dims: [...e.shape], data };
}

export function toOrt(ort: OrtLike, t: HostTensor): OrtTensorLike {
  return new ort.Tensor(t.dtype, t.data, t.dims);
}

export function freshStates(ort: OrtLike, manifest: readonly StateEntry[]): Feeds {
  const feeds: Feeds = {};
  for (const e of manifest) feeds[e.input_name] = toOrt(ort, freshHostState(e));
  return feeds;
}

/** GPU tensors that outlive any one synthesis (a voice's states uploaded once, models/tts/pocket/gpu-inputs.ts). */
const pinned = new WeakSet<object>();

/** Marks a tensor as owned by a cache: `releaseStates` leaves it alone; only its cache disposes it. */
export function pin<T extends object>(t: T): T {
  pinned.add(t);
  return t;
}

/**
 * Frees the GPU-resident tensors of `states` (WebGPU sessions keep state outputs on the GPU, and ORT leaves freeing
 * them to their owner: one flow-LM step holds ~49 MB of KV cache). CPU tensors are left to the garbage collector,
 * pinned ones to their cache.
 */
export function releaseStates(states: Feeds): void {
  for (const t of Object.values(states)) {
    const g = t as { location?: string; dispose?: () => void };
    if (g.location === 'gpu-buffer' && !pinned.has(t)) g.dispose?.();
  }
}

/** The data of a state tensor wherever it lives (a GPU tensor is read back). */
export async function stateData(t: OrtTensorLike): Promise<unknown> {
  const g = t as { location?: string; getData?: () => Promise<unknown> };
  return g.location === 'gpu-buffer' && g.getData ? g.getData() : t.data;
}

/** out_state_i → state_i. A missing output is a contract break, not something to paper over. */
export function threadStates(manifest: readonly StateEntry[], outputs: Record<string, OrtTensorLike>): Feeds {
  const feeds: Feeds = {};
  for (const e of manifest) {
    const t = outputs[e.output_name];
    if (!t) throw new StateError(`graph did not return ${e.output_name} (${e.path})`);
    feeds[e.input_name] = t;
  }
  return feeds;
}

/** The sequence axis of a cache: the one dimension where the stored prefix and the manifest capacity differ. */
function sequenceAxis(prefixDims: readonly number[], capacityDims: readonly number[]): number {
  if (prefixDims.length !== capacityDims.length) throw new StateError(`cache rank ${prefixDims.length} ≠ ${capacityDims.length}`);
  const diff = prefixDims.map((d, i) => (d !== capacityDims[i] ? i : -1)).filter((i) => i >= 0);
  if (diff.length > 1) throw new StateError(`cache dims [${prefixDims}] do not fit [${capacityDims}]`);
  return diff[0] ?? 2;
}

/** Copies a [.., T, ..] prefix into slots 0..T−1 of a fresh [.., capacity, ..] array along `axis`. */
function copyPrefix(
  prefix: Float32Array,
  prefixDims: readonly number[],
  into: Float32Array,
  dims: readonly number[],
  axis: number,
) {
  const outer = elementCount(dims.slice(0, axis));
  const inner = elementCount(dims.slice(axis + 1));
  const t = prefixDims[axis]!;
  const cap = dims[axis]!;
  if (t > cap) throw new StateError(`voice prefix of ${t} frames exceeds the cache capacity ${cap}`);
  for (let o = 0; o < outer; o++) into.set(prefix.subarray(o * t * inner, (o + 1) * t * inner), o * cap * inner);
}

function stepOf(voice: Map<string, HostTensor>, module: string): bigint | undefined {
  for (const key of ['step', 'offset', 'current_end']) {
    const t = voice.get(`${module}/${key}`);
    if (t && t.data.length > 0) return t.data instanceof BigInt64Array ? t.data[0]! : BigInt(Math.round(Number(t.data[0])));
  }
  return undefined;
}

/** The slots a voice fills in the flow-LM caches (its largest per-layer step, as `voiceToFlowHostStates` sets it). */
export function voicePrefixLength(manifest: readonly StateEntry[], voice: Map<string, HostTensor>): number {
  let longest = 0;
  for (const e of manifest) {
    if (e.key !== 'cache') continue;
    const cache = voice.get(e.path);
    const step = stepOf(voice, e.module) ?? BigInt(cache?.dims[sequenceAxis(cache.dims, e.shape)] ?? 0);
    longest = Math.max(longest, Number(step));
  }
  return longest;
}

/**
 * Flow-LM input states holding a voice: each cache NaN-filled to capacity with the voice prefix in slots 0..T−1,
 * `step` = the stored offset (else T), everything else per manifest fill.
 */
export function voiceToFlowHostStates(manifest: readonly StateEntry[], voice: Map<string, HostTensor>): HostTensor[] {
  return manifest.map((e) => {
    const fresh = freshHostState(e);
    if (e.key === 'cache') {
      const prefix = voice.get(e.path);
      if (!prefix || prefix.dtype !== 'float32') throw new StateError(`voice lacks ${e.path}`);
      copyPrefix(
        prefix.data as Float32Array,
        prefix.dims,
        fresh.data as Float32Array,
        e.shape,
        sequenceAxis(prefix.dims, e.shape),
      );
    } else if (e.key === 'step') {
      const cache = voice.get(`${e.module}/cache`);
      const axis = cache
        ? sequenceAxis(cache.dims, manifest.find((m) => m.path === `${e.module}/cache`)?.shape ?? cache.dims)
        : 2;
      const step = stepOf(voice, e.module) ?? BigInt(cache?.dims[axis] ?? 0);
      (fresh.data as BigInt64Array).fill(step);
    } else {
      const stored = voice.get(e.path);
      if (stored && elementCount(stored.dims) === elementCount(e.shape) && stored.dtype === e.dtype)
        fresh.data.set(stored.data as never);
    }
    return fresh;
  });
}

async function hostOf(t: OrtTensorLike): Promise<HostTensor> {
  const data = (t as { getData?: () => Promise<unknown> }).getData
    ? await (t as unknown as { getData(): Promise<unknown> }).getData()
    : t.data;
  if (t.type === 'float32') return { dtype: 'float32', dims: [...t.dims], data: Float32Array.from(data as Float32Array) };
  if (t.type === 'int64') return { dtype: 'int64', dims: [...t.dims], data: BigInt64Array.from(data as BigInt64Array) };
  if (t.type === 'bool') return { dtype: 'bool', dims: [...t.dims], data: Uint8Array.from(data as Uint8Array) };
  throw new StateError(`unsupported state dtype ${t.type}`);
}

/** Flow-LM states after a prefix pass → a voice: caches trimmed to the step (the prefix length), plus offsets. */
export async function flowStatesToVoice(manifest: readonly StateEntry[], states: Feeds): Promise<Map<string, HostTensor>> {
  const voice = new Map<string, HostTensor>();
  const modules = [...new Set(manifest.map((e) => e.module))];
  for (const module of modules) {
    const cacheEntry = manifest.find((e) => e.module === module && e.key === 'cache');
    const stepEntry = manifest.find((e) => e.module === module && e.key === 'step');
    if (!cacheEntry || !stepEntry) continue;
    const step = Number((await hostOf(states[stepEntry.input_name]!)).data[0]);
    const cache = await hostOf(states[cacheEntry.input_name]!);
    const axis = 2;
    const dims = [...cache.dims];
    const cap = dims[axis]!;
    if (step > cap) throw new StateError(`prefix of ${step} exceeds capacity ${cap}`);
    const outer = elementCount(dims.slice(0, axis));
    const inner = elementCount(dims.slice(axis + 1));
    const trimmed = new Float32Array(outer * step * inner);
    const src = cache.data as Float32Array;
    for (let o = 0; o < outer; o++) trimmed.set(src.subarray(o * cap * inner, o * cap * inner + step * inner), o * step * inner);
    dims[axis] = step;
    voice.set(cacheEntry.path, { dtype: 'float32', dims, data: trimmed });
    voice.set(`${module}/offset`, { dtype: 'int64', dims: [1], data: BigInt64Array.of(BigInt(step)) });
  }
  return voice;
}

export { hostOf };
