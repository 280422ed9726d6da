/**
 * Cross-turn KV/conv-state reuse. transformers.js `generate()` slices the prompt at `past_key_values.get_seq_length()`
 * and never checks that those tokens are the ones the cache was built from (docs/models.md, runtime behaviour). So we keep the
 * exact ids a cache covers and hand it out again only when they are a strict prefix of the new prompt; anything else
 * (re-rendered history, compaction, an edited turn) drops it and the caller prefills from scratch.
 */
export interface CacheLike {
  get_seq_length(): number;
  dispose(): Promise<void>;
}

export function isStrictPrefix(prefix: readonly number[], ids: readonly number[]): boolean {
  if (prefix.length === 0 || prefix.length >= ids.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== ids[i]) return false;
  return true;
}

export class PrefixCache<C extends CacheLike> {
  private cache: C | null = null;
  private ids: number[] = [];

  /** Number of tokens currently held (0 when empty). */
  get size(): number {
    return this.cache ? this.ids.length : 0;
  }

  /**
   * The cache to continue from for `promptIds`, handed over to the caller (it is updated in place by generate), or
   * null when there is none or it does not match (then it is disposed).
   */
  async take(promptIds: readonly number[]): Promise<{ cache: C | null; cachedTokens: number }> {
    const cache = this.cache;
    if (!cache) return { cache: null, cachedTokens: 0 };
    const reusable = isStrictPrefix(this.ids, promptIds) && cache.get_seq_length() === this.ids.length;
    this.cache = null;
    if (!reusable) {
      this.ids = [];
      await cache.dispose();
      return { cache: null, cachedTokens: 0 };
    }
    return { cache, cachedTokens: this.ids.length };
  }

  /**
   * Keeps `cache` for the next turn. `sequence` is prompt + generated ids; the cache covers only its first
   * get_seq_length() tokens (the last sampled token is never fed back).
   */
  store(cache: C, sequence: readonly number[]): void {
    const covered = cache.get_seq_length();
    if (covered > sequence.length) throw new Error('cache covers more tokens than the sequence');
    this.cache = cache;
    this.ids = sequence.slice(0, covered);
  }

  async clear(): Promise<void> {
    const cache = this.cache;
    this.cache = null;
    this.ids = [];
    if (cache) await cache.dispose();
  }
}
