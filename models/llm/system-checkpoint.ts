/**
 * The LLM's cache at the end of the system prompt, kept for every later turn (docs/llm-static-kv.md, "The system
 * prompt's checkpoint"). The prefix cache (prefix-cache.ts) serves a turn only when all it covers starts the new
 * prompt, which a talked-over turn breaks (the history keeps what was heard, not what was generated); without this,
 * such a turn prefilled the whole prompt again, system prompt and tools included. No copy is made: the checkpoint owns
 * the tensors the system prompt's prefill produced, and each turn's cache holds aliases of them — GPU tensors over the
 * same buffers with no disposer, so the turn's in-place updates (which dispose what they replace) cannot free them;
 * CPU tensors are never disposed or written by a run, so they are shared as they are.
 */
import { DynamicCache, Tensor } from '@huggingface/transformers';
import { isStrictPrefix } from './prefix-cache';

type Cache = InstanceType<typeof DynamicCache>;

interface OrtTensorLike {
  location: string;
  type: string;
  dims: readonly number[];
  gpuBuffer?: unknown;
}
/** The onnxruntime Tensor class transformers.js runs on (for aliases of GPU tensors). */
export interface OrtTensorFactory {
  fromGpuBuffer(buffer: unknown, options: { dataType: string; dims: readonly number[] }): unknown;
}

const ortOf = (t: Tensor) => (t as unknown as { ort_tensor: OrtTensorLike }).ort_tensor;

export class SystemCheckpoint {
  private ids: number[] = [];
  private owned: Record<string, Tensor> | null = null;

  constructor(private readonly tensors: OrtTensorFactory | null) {}

  /** Tokens covered (0 when none is kept). */
  get size(): number {
    return this.owned ? this.ids.length : 0;
  }

  /** A new cache over the checkpoint for `promptIds`, or null when the checkpoint does not start them. */
  take(promptIds: readonly number[]): { cache: Cache; cachedTokens: number } | null {
    if (!this.owned || !isStrictPrefix(this.ids, promptIds)) return null;
    return { cache: new DynamicCache(this.aliases(this.owned)), cachedTokens: this.ids.length };
  }

  /**
   * Makes `cache`, which covers exactly `ids`, the checkpoint; `cache` itself goes on over aliases. Returns false (and
   * keeps nothing) when a GPU tensor cannot be aliased.
   */
  async keep(cache: Cache, ids: readonly number[]): Promise<boolean> {
    const owned = Object.fromEntries(Object.entries(cache)) as Record<string, Tensor>;
    if (!this.tensors && Object.values(owned).some((t) => ortOf(t).location === 'gpu-buffer')) return false;
    await this.clear();
    this.owned = owned;
    this.ids = [...ids];
    // Assigned, not update(): update() would dispose the tensors the checkpoint now owns.
    Object.assign(cache, this.aliases(owned));
    return true;
  }

  async clear(): Promise<void> {
    const owned = this.owned;
    this.owned = null;
    this.ids = [];
    if (owned) await new DynamicCache(owned).dispose();
  }

  private aliases(owned: Record<string, Tensor>): Record<string, Tensor> {
    const out: Record<string, Tensor> = {};
    for (const [name, t] of Object.entries(owned)) {
      const o = ortOf(t);
      out[name] =
        o.location === 'gpu-buffer'
          ? new Tensor(this.tensors!.fromGpuBuffer(o.gpuBuffer, { dataType: o.type, dims: o.dims }) as never)
          : t;
    }
    return out;
  }
}
