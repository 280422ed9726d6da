// BM25 over chunks: cheap, deterministic, no model needed. Headings are indexed with their chunk (a question
// about "installation" should find the "Installation" section even when its body never repeats the word).
import { pageTunables } from '../tunables';
import { stemWord } from './stemmer';

const STOP = new Set(
  (
    'a an and are as at be but by does did do for from has have how i in is it its of on or say says said ' +
    'that the their them then there these they this to was were what when where which who why will with you ' +
    'your about page article tell me please can could would should'
  ).split(' '),
);

/** Lower-cased word stems (core/page/stemmer.ts), stop words dropped: "expires" and "expiration" both give "expir". */
export function searchTerms(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((w) => !STOP.has(w) && (w.length > 1 || /\d/.test(w)))
    .map(stemWord);
}

/** Search stems with a weight each: a question's own stems weigh 1, words added for it less (core/page/query-rewrite.ts). */
export type WeightedTerms = ReadonlyMap<string, number>;

/** What lexical retrieval searches for: the user's words, or weighted stems made from them. */
export type SearchQuery = string | WeightedTerms;

/** The stems of a query and their weights; a plain question's distinct stems each weigh 1. */
export function queryTerms(query: SearchQuery): WeightedTerms {
  return typeof query === 'string' ? new Map(searchTerms(query).map((t) => [t, 1])) : query;
}

export class Bm25Index {
  private readonly docs: Map<string, number>[];
  private readonly lengths: number[];
  private readonly avgLength: number;
  private readonly df = new Map<string, number>();

  constructor(
    texts: string[],
    private readonly k1: number = pageTunables.bm25K1,
    private readonly b: number = pageTunables.bm25B,
  ) {
    this.docs = texts.map((t) => {
      const tf = new Map<string, number>();
      for (const term of searchTerms(t)) tf.set(term, (tf.get(term) ?? 0) + 1);
      for (const term of tf.keys()) this.df.set(term, (this.df.get(term) ?? 0) + 1);
      return tf;
    });
    this.lengths = this.docs.map((d) => [...d.values()].reduce((a, n) => a + n, 0));
    this.avgLength = this.lengths.reduce((a, n) => a + n, 0) / Math.max(1, this.lengths.length) || 1;
  }

  scores(query: SearchQuery): number[] {
    const terms = queryTerms(query);
    const n = this.docs.length;
    return this.docs.map((tf, i) => {
      let s = 0;
      for (const [term, weight] of terms) {
        const f = tf.get(term);
        if (!f) continue;
        const df = this.df.get(term) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        s +=
          (weight * idf * f * (this.k1 + 1)) / (f + this.k1 * (1 - this.b + (this.b * (this.lengths[i] ?? 0)) / this.avgLength));
      }
      return s;
    });
  }
}
