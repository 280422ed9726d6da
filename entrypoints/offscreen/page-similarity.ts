import { chunkPage } from '../../core/page/chunking';
import type { DenseScores } from '../../core/page/dense';
import { PageEmbeddingIndex } from '../../core/page/page-embeddings';
import type { PageExtraction } from '../../core/page/types';
import { pageTunables } from '../../core/tunables';
import { EMBED_BUNDLE } from '../../models/registry';

export interface PageSimilarityDeps {
  /** Unit-length embeddings from the model worker, its files read under `remoteHost`. */
  embed(remoteHost: string, texts: string[]): Promise<Float32Array[]>;
  modelsReady(bundleIds: string[], baseUrl: string | undefined): Promise<boolean>;
  /** The mirror the conversation's models were loaded from (undefined: the hub). */
  baseUrl(): string | undefined;
  /** Where the model worker runs (null: not started yet, taken as the CPU). */
  backend(): 'webgpu' | 'wasm' | null;
}

/**
 * The dense half of page questions in the offscreen document (docs/tools.md, "Page questions"): null, and so lexical
 * retrieval exactly as before, unless the optional embedding bundle is downloaded. The page is chunked as the prompt
 * builder chunks it, embedded once per content, and the question waits at most `page.denseWaitMs` for it; a slower
 * index finishes in the background for the next question.
 */
export class PageSimilarity {
  private readonly index = new PageEmbeddingIndex((texts) => this.deps.embed(this.host(), texts));

  constructor(private readonly deps: PageSimilarityDeps) {}

  private host(): string {
    return `${this.deps.baseUrl() ?? 'https://huggingface.co'}/`;
  }

  async scores(page: PageExtraction, question: string, signal: AbortSignal): Promise<DenseScores | null> {
    if (!(await this.deps.modelsReady([EMBED_BUNDLE.id], this.deps.baseUrl()))) return null;
    // On the CPU only the page's first `page.denseMaxIndexedTokens` are embedded: a whole long page would keep the model
    // worker busy for many minutes (docs/tools.md, "Whole pages"); the rest is found lexically. A GPU embeds it all.
    const maxIndexedTokens =
      this.deps.backend() === 'webgpu' ? pageTunables.denseMaxIndexedTokensGpu : pageTunables.denseMaxIndexedTokens;
    const chunks = chunkPage(page.text, { maxIndexedTokens }).chunks;
    const work = this.index.scores(page.text, chunks, question);
    work.catch((err: unknown) => console.warn('[sidetalk] page embeddings failed:', err instanceof Error ? err.message : err));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), pageTunables.denseWaitMs);
      signal.addEventListener('abort', () => resolve(null), { once: true });
    });
    try {
      return await Promise.race([work.catch(() => null), late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
