// The dense half of page retrieval: every chunk of a page is embedded once, when the page is first asked about, and
// kept by the hash of the page's text, so later questions about the same page embed only the question. The model is
// injected (the model worker in the extension, a fixture or nothing in tests).
import { pageTunables } from '../tunables';
import type { Chunk } from './chunking';
import { dot, embeddingText, type DenseScores } from './dense';

/** Unit-length embeddings of `texts`, in order. */
export type EmbedTexts = (texts: string[]) => Promise<Float32Array[]>;

/** 64-bit FNV-1a of the text's UTF-16 code units, as hex: a cache key, not a security boundary. */
export function contentHash(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) h = BigInt.asUintN(64, (h ^ BigInt(text.charCodeAt(i))) * 0x100000001b3n);
  return `${h.toString(16).padStart(16, '0')}:${text.length}`;
}

type ChunkVectors = Map<string, Float32Array>;

export class PageEmbeddingIndex {
  /** Content hash → chunk text → vector; Map order is recency (oldest first). */
  private readonly pages = new Map<string, Promise<ChunkVectors>>();

  constructor(private readonly embed: EmbedTexts) {}

  /** How many pages are held (tests). */
  get size(): number {
    return this.pages.size;
  }

  /** Embeds the page's chunks unless this text was embedded before in as many chunks; a failure is forgotten so the next ask retries. */
  index(pageText: string, chunks: readonly Chunk[]): Promise<ChunkVectors> {
    // The chunk count too: a page first indexed in part (on the CPU) is indexed whole once the GPU serves.
    const key = `${chunks.length}:${contentHash(pageText)}`;
    const held = this.pages.get(key);
    if (held) {
      this.pages.delete(key);
      this.pages.set(key, held);
      return held;
    }
    const work = this.embedChunks(chunks);
    this.pages.set(key, work);
    work.catch(() => this.pages.get(key) === work && this.pages.delete(key));
    while (this.pages.size > pageTunables.embeddedPagesKept) this.pages.delete(this.pages.keys().next().value!);
    return work;
  }

  /** Cosine of the question to every chunk of the page, keyed by chunk text (core/page/dense.ts). */
  async scores(pageText: string, chunks: readonly Chunk[], question: string): Promise<DenseScores> {
    const vectors = await this.index(pageText, chunks);
    const [q] = await this.embed([question]);
    if (!q) throw new Error('the embedding model returned no vector for the question');
    const out = new Map<string, number>();
    for (const [text, v] of vectors) out.set(text, dot(q, v));
    return out;
  }

  private async embedChunks(chunks: readonly Chunk[]): Promise<ChunkVectors> {
    const out: ChunkVectors = new Map();
    const seen = new Set<string>();
    const todo = chunks.filter((c) => !seen.has(c.text) && seen.add(c.text));
    for (let i = 0; i < todo.length; i += pageTunables.embedBatchSize) {
      const batch = todo.slice(i, i + pageTunables.embedBatchSize);
      const vectors = await this.embed(batch.map(embeddingText));
      if (vectors.length !== batch.length) throw new Error(`${vectors.length} embeddings for ${batch.length} chunks`);
      batch.forEach((c, j) => out.set(c.text, vectors[j]!));
    }
    return out;
  }
}
