// Hybrid ranking of page chunks: the lexical ranking (BM25 over stems, core/page/bm25.ts) and the dense one (cosine of
// sentence embeddings, core/page/dense.ts) are fused by reciprocal rank: score = Σ w / (k + rank). Ranks, not raw
// scores, are added, because BM25 scores and cosines live on unrelated scales. A chunk absent from a ranking (no query
// term, or not embedded) gets nothing from it. With no dense scores this is exactly the lexical ranking.
import { pageTunables } from '../tunables';
import { Bm25Index, type SearchQuery } from './bm25';
import type { Chunk } from './chunking';
import type { DenseScores } from './dense';
import { chunkSearchText, type LexicalScores } from './lexical-index';

export interface FusionWeights {
  k: number;
  lexical: number;
  dense: number;
  /** Best cosine at which a question with no lexical match still counts as answered by the page. */
  minSimilarity: number;
}

export function defaultFusion(): FusionWeights {
  return {
    k: pageTunables.fusionK,
    lexical: pageTunables.fusionLexicalWeight,
    dense: pageTunables.fusionDenseWeight,
    minSimilarity: pageTunables.denseMinSimilarity,
  };
}

export interface Ranking {
  /** Best first; only chunks that either ranking put forward. */
  ranked: Chunk[];
  /** False when nothing on the page matches: no query term, and no chunk similar enough. */
  matched: boolean;
}

function byScore(entries: { c: Chunk; s: number }[]): Chunk[] {
  return entries.sort((a, b) => b.s - a.s || a.c.id - b.c.id).map((e) => e.c);
}

export function rankChunks(
  chunks: Chunk[],
  question: SearchQuery,
  dense: DenseScores | null = null,
  weights: FusionWeights = defaultFusion(),
  /** BM25 scores by position in `chunks` from an index already built over them (core/page/lexical-index.ts). */
  indexed?: LexicalScores,
): Ranking {
  const lexical =
    weights.lexical <= 0
      ? []
      : indexed
        ? byScore([...indexed].flatMap(([i, s]) => (s > 0 && chunks[i] ? [{ c: chunks[i], s }] : [])))
        : (() => {
            const scores = new Bm25Index(chunks.map(chunkSearchText)).scores(question);
            return byScore(chunks.map((c, i) => ({ c, s: scores[i] ?? 0 })).filter((x) => x.s > 0));
          })();
  const similar =
    dense && weights.dense > 0
      ? chunks.flatMap((c) => {
          const s = dense.get(c.text);
          return s === undefined ? [] : [{ c, s }];
        })
      : [];
  const best = similar.reduce((m, x) => Math.max(m, x.s), -Infinity);
  const matched = lexical.length > 0 || best >= weights.minSimilarity;
  if (!similar.length) return { ranked: lexical, matched };
  const fused = new Map<Chunk, number>();
  lexical.forEach((c, rank) => fused.set(c, (fused.get(c) ?? 0) + weights.lexical / (weights.k + rank + 1)));
  byScore(similar).forEach((c, rank) => fused.set(c, (fused.get(c) ?? 0) + weights.dense / (weights.k + rank + 1)));
  return { ranked: byScore([...fused].map(([c, s]) => ({ c, s }))), matched };
}
