/**
 * The flow LM's KV caches sized to the chunk on WASM (docs/tts.md, "Cache sized to the chunk"). The export declares
 * every cache [2, 1, 1000, 16, 64] (~49 MB for the six layers), and onnxruntime-web copies all of it into the WASM
 * heap and back out into fresh arrays on every step, although a chunk only ever fills voice prefix + text + frame
 * budget slots. So the graph's cache inputs and outputs get a symbolic capacity at load, and each chunk feeds caches
 * of the size it can fill. The graph writes at `step` and attends to the filled prefix only, so a smaller capacity
 * computes the same numbers; `trimmedCapacityHolds` checks that on the real graph at load (one prefill and one step
 * at both sizes must agree bit for bit) and the loop keeps the declared capacity when it does not.
 */
import { elementCount, type StateEntry } from '../../../core/tts/bundle-manifest';
import { readModel, writeModel } from '../../llm/static-kv/onnx-graph-edit';
import type { OrtLike, OrtSessionLike, OrtTensorLike } from './ort-types';
import { freshHostState, threadStates, toOrt, type Feeds } from './state';

/** The sequence axis of a flow-LM cache [2, 1, capacity, heads, head_dim]. */
export const CACHE_AXIS = 2;
const CAPACITY_DIM = 'pocket_cache_capacity';

/** The manifest with every flow-LM cache at `capacity` slots. */
export function withCacheCapacity(manifest: readonly StateEntry[], capacity: number): StateEntry[] {
  return manifest.map((e) => (e.key === 'cache' ? { ...e, shape: e.shape.map((d, i) => (i === CACHE_AXIS ? capacity : d)) } : e));
}

/**
 * `flow_lm_main` with the capacity axis of each cache input and output symbolic; null when the graph's declared
 * cache shapes are not the manifest's (then it is left as it is). Intermediate shape annotations are dropped: some
 * may carry the declared capacity, and onnxruntime infers them again.
 */
export function openCacheCapacity(bytes: Uint8Array, manifest: readonly StateEntry[]): Uint8Array | null {
  let m;
  try {
    m = readModel(bytes);
  } catch {
    return null;
  }
  const caches = manifest.filter((e) => e.key === 'cache');
  if (caches.length === 0) return null;
  for (const e of caches) {
    for (const v of [m.inputs.find((i) => i.name === e.input_name), m.outputs.find((o) => o.name === e.output_name)]) {
      if (!v || v.dims.length !== e.shape.length) return null;
      if (v.dims.some((d, i) => typeof d === 'number' && d !== e.shape[i])) return null;
      v.dims = v.dims.map((d, i) => (i === CACHE_AXIS ? CAPACITY_DIM : d));
    }
  }
  m.graph = m.graph.filter((f) => f.n !== 13);
  return writeModel(m);
}

const sameBits = (a: ArrayLike<number | bigint>, b: ArrayLike<number | bigint>, n = a.length) => {
  for (let i = 0; i < n; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
};

/** The first `slots` positions of a cache [.., capacity, ..] along CACHE_AXIS, as a flat array. */
function leadingSlots(t: OrtTensorLike, slots: number): Float32Array {
  const data = t.data as Float32Array;
  const outer = elementCount(t.dims.slice(0, CACHE_AXIS));
  const cap = t.dims[CACHE_AXIS]!;
  const inner = elementCount(t.dims.slice(CACHE_AXIS + 1));
  const out = new Float32Array(outer * slots * inner);
  for (let o = 0; o < outer; o++) out.set(data.subarray(o * cap * inner, (o * cap + slots) * inner), o * slots * inner);
  return out;
}

/**
 * Whether `session` (a `flow_lm_main` opened from `openCacheCapacity`'s bytes) gives the same conditioning, EOS
 * logit, steps and cache contents with small caches as with the declared ones: a prefill of a few text rows, then
 * one step. Any error counts as no.
 */
export async function trimmedCapacityHolds(
  ort: OrtLike,
  session: OrtSessionLike,
  manifest: readonly StateEntry[],
  dims: { latent: number; conditioning: number },
): Promise<boolean> {
  const textRows = 3;
  const small = textRows + 2;
  const run = async (m: readonly StateEntry[]) => {
    let states: Feeds = Object.fromEntries(m.map((e) => [e.input_name, toOrt(ort, freshHostState(e))]));
    const text = Float32Array.from({ length: textRows * dims.conditioning }, (_, i) => Math.sin(i * 0.37) * 0.5);
    const prefill = await session.run({
      sequence: new ort.Tensor('float32', new Float32Array(0), [1, 0, dims.latent]),
      text_embeddings: new ort.Tensor('float32', text, [1, textRows, dims.conditioning]),
      ...states,
    });
    states = threadStates(m, prefill);
    const latent = Float32Array.from({ length: dims.latent }, (_, i) => Math.cos(i * 0.61) * 0.3);
    const step = await session.run({
      sequence: new ort.Tensor('float32', latent, [1, 1, dims.latent]),
      text_embeddings: new ort.Tensor('float32', new Float32Array(0), [1, 0, dims.conditioning]),
      ...states,
    });
    return step;
  };
  try {
    const full = await run(manifest);
    const trimmed = await run(withCacheCapacity(manifest, small));
    for (const name of ['conditioning', 'eos_logit']) {
      const a = full[name]?.data as Float32Array | undefined;
      const b = trimmed[name]?.data as Float32Array | undefined;
      if (!a || !b || a.length !== b.length || !sameBits(a, b)) return false;
    }
    for (const e of manifest) {
      const a = full[e.output_name];
      const b = trimmed[e.output_name];
      if (!a || !b) return false;
      if (e.key === 'cache') {
        if (b.dims[CACHE_AXIS] !== small) return false;
        const filled = textRows + 1;
        if (!sameBits(leadingSlots(a, filled), leadingSlots(b, filled))) return false;
      } else if (!sameBits(a.data as ArrayLike<number | bigint>, b.data as ArrayLike<number | bigint>)) return false;
    }
    return true;
  } catch {
    return false;
  }
}
