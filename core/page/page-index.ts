// The standing index of a page's text (docs/tools.md, "Whole pages"): chunks are made one at a time
// (streamChunks) and go into the BM25 inverted index (core/page/lexical-index.ts) as they are made, in slices of
// `page.indexSliceMs` with a pause between them, so a long page never holds the thread for long. A question asked
// before the last chunk is in is answered from the chunks indexed so far, and says so. Indexes are kept by a hash of
// the page text for `page.indexedPagesKept` pages, so a second question about the same page asks only.
import { pageTunables } from '../tunables';
import type { Clock } from '../tools/types';
import { splitSections, streamChunks, type Chunk } from './chunking';
import { chunkSearchText, LexicalIndex } from './lexical-index';

export class PageIndex {
  /** Chunks indexed so far, in page order; position i is position i of the lexical index. */
  readonly chunks: Chunk[] = [];
  readonly lexical = new LexicalIndex();
  /** Characters of section text (headings left out) in the whole page, and in the chunks indexed so far. */
  readonly totalChars: number;
  indexedChars = 0;
  done = false;
  /** The page passed `page.maxIndexedTokens`: the rest of it is not indexed. */
  truncated = false;
  /** Resolves when every chunk is in (or the build was stopped). */
  readonly ready: Promise<void>;
  private stopped = false;

  constructor(
    readonly text: string,
    private readonly clock: Clock,
  ) {
    this.totalChars = splitSections(text).reduce((n, s) => n + s.text.length, 0);
    this.ready = this.build();
  }

  /** Share of the page's text indexed, 0–1 (1 once done). */
  get fraction(): number {
    if (this.done) return 1;
    return this.totalChars ? Math.min(1, this.indexedChars / this.totalChars) : 0;
  }

  /** Stops building (the index keeps what it has; `done` stays false). */
  stop(): void {
    this.stopped = true;
  }

  private async build(): Promise<void> {
    const stream = streamChunks(this.text);
    let sliceStart = this.clock.now();
    for (;;) {
      if (this.stopped) return;
      const step = stream.next();
      if (step.done) {
        this.truncated = step.value.truncated;
        this.done = true;
        return;
      }
      this.chunks.push(step.value);
      this.lexical.add(chunkSearchText(step.value));
      this.indexedChars += step.value.text.length;
      if (this.clock.now() - sliceStart >= pageTunables.indexSliceMs) {
        await this.clock.sleep(0);
        sliceStart = this.clock.now();
      }
    }
  }
}

/** 2 × 32-bit FNV-1a of the UTF-16 code units plus the length: a cache key, not a security boundary (fast on MBs). */
export function fastTextKey(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return `${(a >>> 0).toString(16)}${(b >>> 0).toString(16)}:${text.length}`;
}

export class PageIndexCache {
  /** Key → index; Map order is recency (oldest first). */
  private readonly pages = new Map<string, PageIndex>();

  constructor(private readonly clock: Clock) {}

  get size(): number {
    return this.pages.size;
  }

  /** The page's index, started now unless this text was indexed (or is being indexed) already. */
  index(text: string): PageIndex {
    const key = fastTextKey(text);
    const held = this.pages.get(key);
    if (held) {
      this.pages.delete(key);
      this.pages.set(key, held);
      return held;
    }
    const made = new PageIndex(text, this.clock);
    this.pages.set(key, made);
    while (this.pages.size > pageTunables.indexedPagesKept) {
      const [oldest, old] = this.pages.entries().next().value!;
      old.stop();
      this.pages.delete(oldest);
    }
    return made;
  }

  /**
   * The page's index once it is complete, or after `page.indexWaitMs` (or an abort) with what it holds by then: the
   * prompt builder then quotes from that part and tells the user how much was read.
   */
  async indexFor(text: string, signal?: AbortSignal): Promise<PageIndex> {
    const index = this.index(text);
    if (index.done) return index;
    const stopWaiting = new AbortController();
    const onAbort = () => stopWaiting.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await Promise.race([index.ready, this.clock.sleep(pageTunables.indexWaitMs, stopWaiting.signal).catch(() => {})]);
    } finally {
      stopWaiting.abort();
      signal?.removeEventListener('abort', onAbort);
    }
    return index;
  }
}
