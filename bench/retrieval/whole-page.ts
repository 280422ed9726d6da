/**
 * Whole-page indexing (docs/tools.md, "Whole pages"; docs/benchmarks.md, "Page retrieval"): for pages of 15,000,
 * 60,000 and 250,000 words (tests/fixtures/retrieval/whole-page.ts: on-topic distractor parts, then a retrieval-set
 * page with its 29 questions last), the time to build the page index (core/page/page-index.ts) with no pauses, the
 * heap it holds, the time of one lexical question (BM25 from the index, then the budget), and lexical recall at the
 * prompt budget. Then the same recall with the old 60,000-token cap, for comparison.
 *   npx jiti bench/retrieval/whole-page.ts [--out bench/results/<name>]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import v8 from 'node:v8';
import vm from 'node:vm';
import { chunkPage } from '../../core/page/chunking';
import { PageIndex } from '../../core/page/page-index';
import { retrievePassages } from '../../core/page/retrieval';
import { pageTunables } from '../../core/tunables';
import { RETRIEVAL_PAGES } from '../../tests/fixtures/retrieval/pages';
import { seededRandom } from '../../tests/fixtures/seeded-random';
import { pageEndingWith } from '../../tests/fixtures/retrieval/whole-page';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const SIZES = [15_000, 60_000, 250_000];
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const instant = { now: () => performance.now(), sleep: () => Promise.resolve() };

export interface WholePageRow {
  words: number;
  chars: number;
  chunks: number;
  /** Build the whole index, no pauses (what the 8 ms slices add up to), median of 3. */
  indexMs: number;
  /** Heap held by the page text and its index, after a full GC. */
  heapMB: number;
  /** One question: BM25 scores from the index, ranking and the budget (median over the 58 questions). */
  questionMs: number;
  /** Slowest of the 58 questions. */
  questionMaxMs: number;
  /** Lexical recall by question kind (words / paraphrase / two-sections). */
  recall: Record<string, number>;
  /** The same when only the first 60,000 estimated tokens are indexed (the cap before whole pages). */
  recallOldCap: Record<string, number>;
}

async function measure(words: number): Promise<WholePageRow> {
  const budget = pageTunables.contextTokens;
  const hits: Record<string, number[]> = {};
  const hitsOld: Record<string, number[]> = {};
  const times: number[] = [];
  const builds: number[] = [];
  let heap = 0;
  let chunks = 0;
  let chars = 0;
  let wordCount = 0;
  for (const [p, target] of RETRIEVAL_PAGES.entries()) {
    const page = pageEndingWith(target, words, 7 + p);
    chars += page.text.length / RETRIEVAL_PAGES.length;
    wordCount += page.words / RETRIEVAL_PAGES.length;
    for (let i = 0; i < 3; i++) {
      gc();
      const t = performance.now();
      const built = new PageIndex(page.text, instant);
      await built.ready;
      builds.push(performance.now() - t);
    }
    gc();
    const before = process.memoryUsage().heapUsed;
    const text = page.text.split('').join(''); // a fresh copy, so the page text is counted in the heap too
    const index = new PageIndex(text, instant);
    await index.ready;
    gc();
    heap = Math.max(heap, process.memoryUsage().heapUsed - before);
    chunks = index.chunks.length;
    const old = chunkPage(page.text, { maxIndexedTokens: 60_000 }).chunks;
    for (const q of target.questions) {
      const t = performance.now();
      const picked = retrievePassages(index.chunks, q.question, budget, null, undefined, index.lexical.scores(q.question));
      times.push(performance.now() - t);
      const quoted = picked.chunks.map((c) => c.text).join('\n');
      (hits[q.kind] ??= []).push(q.answers.filter((a) => quoted.includes(a)).length / q.answers.length);
      const oldQuoted = retrievePassages(old, q.question, budget, null)
        .chunks.map((c) => c.text)
        .join('\n');
      (hitsOld[q.kind] ??= []).push(q.answers.filter((a) => oldQuoted.includes(a)).length / q.answers.length);
    }
  }
  return {
    words: Math.round(wordCount),
    chars: Math.round(chars),
    chunks,
    indexMs: round(median(builds), 0),
    heapMB: round(heap / 2 ** 20),
    questionMs: round(median(times)),
    questionMaxMs: round(Math.max(...times)),
    recall: Object.fromEntries(Object.entries(hits).map(([k, v]) => [k, round(v.reduce((a, x) => a + x, 0) / v.length, 3)])),
    recallOldCap: Object.fromEntries(
      Object.entries(hitsOld).map(([k, v]) => [k, round(v.reduce((a, x) => a + x, 0) / v.length, 3)]),
    ),
  };
}

/**
 * A 250,000-word page with a wide vocabulary, for the memory bound: words drawn with a Zipf-like law (rank r with
 * weight 1 / (r + 10)) from the 25,000 most frequent words of the GloVe fixture (tests/fixtures/retrieval/word-vectors),
 * 12-word sentences, 6 sentences a paragraph, a heading every 8 paragraphs.
 */
function wideVocabularyPage(words: number): string {
  const list = readFileSync('tests/fixtures/retrieval/word-vectors/words.txt', 'utf8')
    .split('\n')
    .map((l) => l.split('\t')[0]!)
    .filter(Boolean);
  const cumulative: number[] = [];
  let sum = 0;
  for (let r = 0; r < list.length; r++) cumulative.push((sum += 1 / (r + 10)));
  const rand = seededRandom(51);
  const word = () => {
    const x = rand() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return list[lo]!;
  };
  const blocks: string[] = [];
  for (let n = 0, p = 0; n < words; p++) {
    if (p % 8 === 0) blocks.push(`## ${word()} ${word()}`);
    const sentences = Array.from({ length: 6 }, () => `${Array.from({ length: 12 }, word).join(' ')}.`);
    blocks.push(sentences.join(' '));
    n += 72;
  }
  return blocks.join('\n\n');
}

export interface MemoryRow {
  words: number;
  chars: number;
  chunks: number;
  terms: number;
  heapMB: number;
}

/** Heap held by a 250,000-word, wide-vocabulary page and its index (the page text counted). */
export async function measureMemory(words = 250_000): Promise<MemoryRow> {
  const source = wideVocabularyPage(words);
  gc();
  const before = process.memoryUsage().heapUsed;
  const text = source.split('').join('');
  const index = new PageIndex(text, instant);
  await index.ready;
  gc();
  const heap = process.memoryUsage().heapUsed - before;
  return {
    words: text.split(/\s+/).length,
    chars: text.length,
    chunks: index.chunks.length,
    terms: index.lexical.terms,
    heapMB: round(heap / 2 ** 20),
  };
}

export async function measureWholePages(): Promise<WholePageRow[]> {
  const rows: WholePageRow[] = [];
  for (const words of SIZES) rows.push(await measure(words));
  return rows;
}

export function wholePageMarkdown(rows: WholePageRow[]): string {
  const pct = (r: Record<string, number>) =>
    ['words', 'paraphrase', 'two-sections'].map((k) => `${Math.round((r[k] ?? 0) * 100)} %`).join(' / ');
  return [
    `Whole pages: lexical index and recall at the prompt budget (${pageTunables.contextTokens} tokens), the set's page last after on-topic distractors; ${os.cpus().length} cores, Node ${process.versions.node}:`,
    '',
    '| words | characters | chunks | build index | heap held | one question (median / max) | lexical recall (words / paraphrase / two-sections) | the same, first 60k tokens only |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.words.toLocaleString('en-US')} | ${r.chars.toLocaleString('en-US')} | ${r.chunks} | ${r.indexMs} ms | ${r.heapMB} MB | ${r.questionMs} / ${r.questionMaxMs} ms | ${pct(r.recall)} | ${pct(r.recallOldCap)} |`,
    ),
    '',
  ].join('\n');
}

/** One measured embedding index run (bench/retrieval/run.ts, its JSON's `index` rows). */
export interface MeasuredIndexRow {
  machine: string;
  ep: string;
  format?: string;
  threads: number;
  perChunkMs: number;
}

/**
 * Embedding index time per whole-page size, DERIVED (not run at these sizes): each size's chunk count times a measured
 * run's time per chunk. The batches are the same size at every page size, so the time grows with the chunk count.
 * Only fp32 rows: the product pins the fp32 export (docs/models.md).
 */
export function derivedEmbeddingIndex(rows: WholePageRow[], measured: MeasuredIndexRow[]): string {
  const runs = measured.filter((m) => (m.format ?? 'float') === 'float');
  const s = (ms: number) => (ms < 60_000 ? `${round(ms / 1000)} s` : `${round(ms / 60_000)} min`);
  return [
    'Embedding index per size, DERIVED from measured time per chunk (chunks × ms per chunk; not run at these sizes):',
    '',
    `| run | ms per chunk | ${rows.map((r) => `${r.words.toLocaleString('en-US')} words (${r.chunks} chunks)`).join(' | ')} |`,
    `|---|---|${rows.map(() => '---').join('|')}|`,
    ...runs.map(
      (m) =>
        `| ${m.machine}, ${m.ep}, ${m.threads} thread${m.threads > 1 ? 's' : ''} | ${m.perChunkMs} | ${rows.map((r) => s(r.chunks * m.perChunkMs)).join(' | ')} |`,
    ),
    '',
  ].join('\n');
}

if (process.argv[1]?.endsWith('whole-page.ts')) {
  void measureWholePages().then(async (rows) => {
    const memory = await measureMemory();
    const from = process.argv.indexOf('--index-from');
    const measured =
      from >= 0 ? (JSON.parse(readFileSync(process.argv[from + 1]!, 'utf8')) as { index: MeasuredIndexRow[] }).index : [];
    const derived = measured.length ? `\n${derivedEmbeddingIndex(rows, measured)}` : '';
    const md = `${wholePageMarkdown(rows)}\nWide vocabulary (memory bound): ${memory.words.toLocaleString('en-US')} words, ${memory.chars.toLocaleString('en-US')} characters, ${memory.chunks} chunks, ${memory.terms.toLocaleString('en-US')} distinct terms: ${memory.heapMB} MB of heap held with the text.\n${derived}`;
    process.stdout.write(md);
    const i = process.argv.indexOf('--out');
    if (i >= 0) {
      writeFileSync(`${process.argv[i + 1]}.json`, `${JSON.stringify({ date: new Date().toISOString(), rows }, null, 2)}\n`);
      writeFileSync(`${process.argv[i + 1]}.md`, md);
    }
  });
}
