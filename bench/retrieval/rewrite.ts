/**
 * Lexical retrieval with and without the question rewrite (core/page/query-rewrite.ts; docs/benchmarks.md, "Page
 * retrieval"), the rewriter being one of two SCRIPTED STAND-INS made from the questions' own words, NOT the real LLM:
 * GloVe neighbours (stand-in-rewriter.ts), and the product's own built-in thesaurus (core/page/thesaurus.ts, the
 * shipped WordNet table: what a CPU-only machine gets, no stand-in). Each runs through the product's rewriteQuery
 * (prompt, parse, merge) with a cap that never passes; the thesaurus as the path without an LLM answer. Recall of the answer sentences at the prompt budget and in the top 1 / 3 chunks, per question kind, on
 * the retrieval set's pages and on whole pages of 15k / 60k / 250k words (the set's page last, as whole-page.ts).
 *   npx jiti bench/retrieval/run.ts --rewrite [--out bench/results/<name>]
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import type { SearchQuery } from '../../core/page/bm25';
import { chunkPage, type Chunk } from '../../core/page/chunking';
import { rankChunks } from '../../core/page/fusion';
import { PageIndex } from '../../core/page/page-index';
import { rewriteQuery } from '../../core/page/query-rewrite';
import { retrievePassages } from '../../core/page/retrieval';
import { pageTunables } from '../../core/tunables';
import { RETRIEVAL_PAGES, type Question } from '../../tests/fixtures/retrieval/pages';
import { pageEndingWith } from '../../tests/fixtures/retrieval/whole-page';
import { gloveReplies, scriptedRewriter } from './stand-in-rewriter';
import { readThesaurus } from '../../tests/fixtures/thesaurus';

const KINDS: Question['kind'][] = ['words', 'paraphrase', 'two-sections'];
const SIZES = [15_000, 60_000, 250_000];
const TOP = [1, 3];
const instant = { now: () => performance.now(), sleep: () => Promise.resolve() };
/** The cap's sleep never ends: the stand-in always answers in time (its speed is not what is measured). */
const noCap = { now: () => 0, sleep: () => new Promise<void>(() => undefined) };

type Scores = { budget: number; top1: number; top3: number };
/** The question as asked, and each stand-in's rewrite of it. */
type Variant = 'asked' | 'glove' | 'thesaurus';
type Scored = { q: Question } & Record<Variant, Scores>;
export interface RewriteRow {
  page: string;
  words: number;
  chunks: number;
  /** kind → recall without and with each stand-in's rewrite, and the number of questions. */
  recall: Record<string, { questions: number } & Record<Variant, Scores>>;
}

const recallOf = (q: Question, chosen: { text: string }[]) => {
  const quoted = chosen.map((c) => c.text).join('\n');
  return q.answers.filter((a) => quoted.includes(a)).length / q.answers.length;
};

function score(q: Question, chunks: Chunk[], query: SearchQuery, index?: PageIndex): Scores {
  const indexed = index?.lexical.scores(query);
  const { ranked } = rankChunks(chunks, query, null, undefined, indexed);
  const [top1, top3] = TOP.map((k) => recallOf(q, ranked.slice(0, k)));
  const budget = recallOf(q, retrievePassages(chunks, query, pageTunables.contextTokens, null, undefined, indexed).chunks);
  return { budget, top1: top1!, top3: top3! };
}

const mean = (xs: number[]) => Math.round((xs.reduce((a, x) => a + x, 0) / Math.max(1, xs.length)) * 1000) / 1000;

function summarise(page: string, words: number, chunks: number, rows: Scored[]): RewriteRow {
  const recall: RewriteRow['recall'] = {};
  for (const kind of KINDS) {
    const of = rows.filter((r) => r.q.kind === kind);
    const avg = (v: Variant): Scores => ({
      budget: mean(of.map((r) => r[v].budget)),
      top1: mean(of.map((r) => r[v].top1)),
      top3: mean(of.map((r) => r[v].top3)),
    });
    recall[kind] = { questions: of.length, asked: avg('asked'), glove: avg('glove'), thesaurus: avg('thesaurus') };
  }
  return { page, words, chunks, recall };
}

export async function measureRewrite(): Promise<{ replies: Record<string, Record<string, string>>; rows: RewriteRow[] }> {
  const questions = RETRIEVAL_PAGES.flatMap((p) => p.questions.map((q) => q.question));
  const replies = { glove: gloveReplies(questions) };
  const thesaurus = readThesaurus();
  // The in-browser model on WASM: an empty answer (query-rewrite.ts localRewriteAnswer).
  const noAnswer = async function* (): AsyncGenerator<string> {};
  const signal = new AbortController().signal;
  const queries = new Map<string, Record<Variant, SearchQuery>>();
  for (const q of questions) {
    const rewritten = async (r: Record<string, string>) =>
      rewriteQuery(q, signal, { generate: scriptedRewriter(r), clock: noCap });
    const fromThesaurus = await rewriteQuery(q, signal, {
      generate: noAnswer,
      clock: noCap,
      thesaurus: async (question) => thesaurus.keywords(question, pageTunables.rewriteMaxKeywords),
    });
    queries.set(q, { asked: q, glove: await rewritten(replies.glove), thesaurus: fromThesaurus });
  }
  const scored = (q: Question, chunks: Chunk[], index?: PageIndex): Scored => {
    const qs = queries.get(q.question)!;
    return {
      q,
      asked: score(q, chunks, qs.asked, index),
      glove: score(q, chunks, qs.glove, index),
      thesaurus: score(q, chunks, qs.thesaurus, index),
    };
  };
  const rows: RewriteRow[] = [];
  // The set's own pages (~11,800 words), chunked as the prompt builder chunks a page without an index.
  const setRows: Scored[] = [];
  let setWords = 0;
  let setChunks = 0;
  for (const page of RETRIEVAL_PAGES) {
    const { chunks } = chunkPage(page.text);
    setWords += page.text.split(/\s+/).length / RETRIEVAL_PAGES.length;
    setChunks += chunks.length / RETRIEVAL_PAGES.length;
    for (const q of page.questions) setRows.push(scored(q, chunks));
  }
  rows.push(summarise('retrieval set', Math.round(setWords), Math.round(setChunks), setRows));
  // Whole pages through the standing index (core/page/page-index.ts), as the offscreen document searches them.
  for (const size of SIZES) {
    const sized: Scored[] = [];
    let words = 0;
    let chunks = 0;
    for (const [p, target] of RETRIEVAL_PAGES.entries()) {
      const page = pageEndingWith(target, size, 7 + p);
      const index = new PageIndex(page.text, instant);
      await index.ready;
      words += page.words / RETRIEVAL_PAGES.length;
      chunks += index.chunks.length / RETRIEVAL_PAGES.length;
      for (const q of target.questions) sized.push(scored(q, index.chunks, index));
    }
    rows.push(summarise(`whole page ${size.toLocaleString('en-US')}`, Math.round(words), Math.round(chunks), sized));
  }
  return { replies, rows };
}

export function rewriteMarkdown(rows: RewriteRow[]): string {
  const pct = (x: number) => `${Math.round(x * 100)} %`;
  const cell = (s: Scores) => `${pct(s.budget)} / ${pct(s.top1)} / ${pct(s.top3)}`;
  return [
    `Lexical recall without and with the question rewrite. The rewriters are SCRIPTED STAND-INS, NOT the real LLM: GloVe neighbours of the question's own words (bench/retrieval/stand-in-rewriter.ts). The built-in thesaurus is the product's own (core/page/thesaurus.ts, WordNet 3.0 synonyms shipped in public/thesaurus), as a CPU-only machine runs it. Each cell: at the prompt budget (${pageTunables.contextTokens} tokens) / top 1 chunk / top 3 chunks. Added stems weigh ${pageTunables.rewriteTermWeight}, at most ${pageTunables.rewriteMaxAddedTerms}; ${os.cpus().length} cores, Node ${process.versions.node}.`,
    '',
    '| page | words | chunks | kind | n | as asked | GloVe stand-in rewrite | built-in thesaurus |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.flatMap((r) =>
      KINDS.map((k) => {
        const x = r.recall[k]!;
        return `| ${r.page} | ${r.words.toLocaleString('en-US')} | ${r.chunks} | ${k} | ${x.questions} | ${cell(x.asked)} | ${cell(x.glove)} | ${cell(x.thesaurus)} |`;
      }),
    ),
    '',
  ].join('\n');
}

export async function runRewriteBench(out: string | undefined): Promise<void> {
  const { replies, rows } = await measureRewrite();
  const md = rewriteMarkdown(rows);
  process.stdout.write(md);
  if (!out) return;
  const meta = {
    date: new Date().toISOString(),
    host: { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.versions.node },
    rewriter:
      'glove: a scripted stand-in rewriter, not the real LLM, made from the questions only (GloVe nearest neighbours of the question words, bench/retrieval/stand-in-rewriter.ts); thesaurus: the product itself, the built-in WordNet 3.0 thesaurus (core/page/thesaurus.ts, public/thesaurus/wordnet-synonyms.tsv.gz) used when the LLM gives no keywords',
    tunables: {
      rewriteTermWeight: pageTunables.rewriteTermWeight,
      rewriteMaxKeywords: pageTunables.rewriteMaxKeywords,
      rewriteMaxAddedTerms: pageTunables.rewriteMaxAddedTerms,
      contextTokens: pageTunables.contextTokens,
    },
  };
  writeFileSync(`${out}.json`, `${JSON.stringify({ meta, rows, replies }, null, 2)}\n`);
  writeFileSync(`${out}.md`, md);
}
