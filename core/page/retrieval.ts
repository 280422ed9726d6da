// Choosing which page text goes into the prompt, within a token budget:
//  - question: chunks ranked by BM25 over stems, fused with sentence-embedding similarity when the page was embedded
//    (core/page/fusion.ts), best first until the budget is full;
//  - summary:  a representative spread — the first chunk of every section, then second chunks, and so on.
// Chosen chunks are returned in page order so the quoted text reads naturally.
import type { SearchQuery } from './bm25';
import type { Chunk } from './chunking';
import type { DenseScores } from './dense';
import { defaultFusion, rankChunks, type FusionWeights } from './fusion';
import type { LexicalScores } from './lexical-index';

export interface Selection {
  chunks: Chunk[];
  /** Distinct section headings used, in page order ('' = text before the first heading). */
  sections: string[];
  /** For questions: false when nothing matched and the page's opening was used instead. */
  matched: boolean;
  /** True when chunks were left out for the budget. */
  partial: boolean;
  /** The chosen chunks best first (for summaries, in the order they were taken). */
  ranked: Chunk[];
}

function finish(all: Chunk[], picked: Chunk[], matched: boolean): Selection {
  const chunks = [...picked].sort((a, b) => a.id - b.id);
  const sections: string[] = [];
  for (const c of chunks) if (!sections.includes(c.heading)) sections.push(c.heading);
  return { chunks, sections, matched, partial: picked.length < all.length, ranked: [...picked] };
}

export function selectForSummary(chunks: Chunk[], budgetTokens: number): Selection {
  const bySection = new Map<number, Chunk[]>();
  for (const c of chunks) bySection.set(c.sectionIndex, [...(bySection.get(c.sectionIndex) ?? []), c]);
  const groups = [...bySection.values()];
  const picked: Chunk[] = [];
  let used = 0;
  for (let round = 0; groups.some((g) => g.length > round); round++) {
    for (const g of groups) {
      const c = g[round];
      if (c && used + c.tokens <= budgetTokens) {
        picked.push(c);
        used += c.tokens;
      }
    }
  }
  return finish(chunks, picked, true);
}

/**
 * Dense scores for retrievePassages calls made while `build` runs. buildPagePrompt (core/page/prompt.ts) chunks the
 * page and calls retrievePassages itself; the responder, which holds the embeddings, wraps that synchronous call in
 * this, so the prompt builder needs no knowledge of embeddings. Reset when `build` returns or throws.
 */
let ambientDense: DenseScores | null = null;

export function withDenseScores<T>(dense: DenseScores | null, build: () => T): T {
  const outer = ambientDense;
  ambientDense = dense;
  try {
    return build();
  } finally {
    ambientDense = outer;
  }
}

export function retrievePassages(
  chunks: Chunk[],
  /** The question, or weighted stems made from it (core/page/query-rewrite.ts). */
  question: SearchQuery,
  budgetTokens: number,
  dense: DenseScores | null = ambientDense,
  weights: FusionWeights = defaultFusion(),
  /** BM25 scores from the page's standing index (core/page/page-index.ts); without them BM25 is built here. */
  indexed?: LexicalScores,
): Selection {
  const { ranked, matched } = rankChunks(chunks, question, dense, weights, indexed);
  if (!matched || !ranked.length) {
    // Nothing matched: quote the opening so the model can say the page doesn't cover it (or answer generally).
    const opening: Chunk[] = [];
    let used = 0;
    for (const c of chunks) {
      if (used + c.tokens > budgetTokens) break;
      opening.push(c);
      used += c.tokens;
    }
    return finish(chunks, opening, false);
  }
  const picked: Chunk[] = [];
  let used = 0;
  for (const c of ranked) {
    if (used + c.tokens > budgetTokens) continue;
    picked.push(c);
    used += c.tokens;
  }
  if (!picked.length) {
    // Even the best chunk is over budget: quote its beginning rather than nothing.
    const best = ranked[0]!;
    const ratio = budgetTokens / best.tokens;
    picked.push({ ...best, text: best.text.slice(0, Math.floor(best.text.length * ratio)), tokens: budgetTokens });
  }
  return finish(chunks, picked, true);
}
