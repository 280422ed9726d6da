// BM25 over a page's chunks as an inverted index that grows one chunk at a time (core/page/page-index.ts feeds it
// while the page is still being chunked). A question reads only the postings of its own terms, so asking costs
// little at any page size; the corpus statistics (chunk count, mean length, document frequency) are those of the
// chunks added so far, so scores over a finished index equal Bm25Index's over the same texts (core/page/bm25.ts).
import { pageTunables } from '../tunables';
import { queryTerms, searchTerms, type SearchQuery } from './bm25';
import type { Chunk } from './chunking';

/** The text BM25 sees for a chunk: its heading path twice, then its text, so a section's title weighs like body words. */
export function chunkSearchText(c: Pick<Chunk, 'path' | 'text'>): string {
  return `${c.path.join(' ')} ${c.path.join(' ')} ${c.text}`;
}

/** Scores by chunk position (the order chunks were added); chunks without any query term are absent. */
export type LexicalScores = Map<number, number>;

export class LexicalIndex {
  /** term → [position, term frequency, position, term frequency, …] in the order chunks were added. */
  private readonly postings = new Map<string, number[]>();
  private readonly lengths: number[] = [];
  private totalLength = 0;

  constructor(
    private readonly k1: number = pageTunables.bm25K1,
    private readonly b: number = pageTunables.bm25B,
  ) {}

  /** Number of chunks indexed. */
  get size(): number {
    return this.lengths.length;
  }

  /** Distinct terms held (for the memory statement in docs/tools.md). */
  get terms(): number {
    return this.postings.size;
  }

  /** Indexes one more text; its position is the number of texts added before it. */
  add(text: string): void {
    const position = this.lengths.length;
    const tf = new Map<string, number>();
    let length = 0;
    for (const term of searchTerms(text)) {
      tf.set(term, (tf.get(term) ?? 0) + 1);
      length++;
    }
    for (const [term, f] of tf) {
      const list = this.postings.get(term);
      if (list) list.push(position, f);
      else this.postings.set(term, [position, f]);
    }
    this.lengths.push(length);
    this.totalLength += length;
  }

  /** BM25 of each chunk holding a query term; a weighted query scales each term's part by its weight. */
  scores(query: SearchQuery): LexicalScores {
    const out: LexicalScores = new Map();
    const n = this.lengths.length;
    if (!n) return out;
    const avgLength = this.totalLength / n || 1;
    for (const [term, weight] of queryTerms(query)) {
      const list = this.postings.get(term);
      if (!list) continue;
      const df = list.length / 2;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let i = 0; i < list.length; i += 2) {
        const position = list[i]!;
        const f = list[i + 1]!;
        const norm = 1 - this.b + (this.b * this.lengths[position]!) / avgLength;
        out.set(position, (out.get(position) ?? 0) + (weight * idf * f * (this.k1 + 1)) / (f + this.k1 * norm));
      }
    }
    return out;
  }
}
