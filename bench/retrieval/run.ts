/**
 * The page-retrieval bench (docs/benchmarks.md, "Page retrieval"): recall at the prompt's token budget for lexical,
 * dense and hybrid retrieval over tests/fixtures/retrieval (recall.ts), whole pages of 15k / 60k / 250k words
 * (whole-page.ts: index build time, heap, question time, lexical recall), and the time to index a 100,000-character page
 * with an all-MiniLM-L6-v2-shaped graph on WASM here (index-time.ts); WebGPU rows come from the GPU machine.
 *   npx jiti bench/retrieval/run.ts [--threads 1,2] [--gpu a.json,b.json --gpu-host "<label>"] [--out bench/results/<name>]
 *   npx jiti bench/retrieval/run.ts --gpu-kit     writes bench/out/retrieval-kit/retrieval-{index.mjs,batches.json,
 *     whole.json} (whole.json: the whole pages, whole-page-batches.ts)
 *   npx jiti bench/retrieval/run.ts --rewrite [--out <base>]   lexical recall with the question rewrite (rewrite.ts;
 *     a scripted GloVe stand-in for the LLM, and the built-in thesaurus itself)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { defaultDistDir } from '../stages/run';
import { measureIndexTime, type IndexTimeResult } from './index-time';
import { tokenizedPage } from './tokenize-page';
import { packedWholePages } from './whole-page-batches';
import { fixtureEmbedder, KINDS, measureRecall, MODES, type RecallResult } from './recall';
import { measureWholePages, wholePageMarkdown } from './whole-page';
import { runRewriteBench } from './rewrite';
import { pageTunables } from '../../core/tunables';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

type IndexRow = (IndexTimeResult | { ep: string; format?: string; error: string }) & { machine: string };

function markdown(recall: RecallResult, index: IndexRow[]): string {
  const pct = (x: number) => `${Math.round(x * 100)} %`;
  const lines = [
    `Recall at the prompt budget (${recall.budgetTokens} tokens; ${recall.pages.map((p) => `${p.words.toLocaleString('en-US')} words, ${p.chunks} chunks`).join(' / ')}):`,
    '',
    '| questions | n | lexical (BM25 + stems) | dense (GloVe-SIF stand-in) | hybrid (RRF) |',
    '|---|---|---|---|---|',
    ...KINDS.map((k) => {
      const r = recall.recall[k]!;
      return `| ${k} | ${r.questions} | ${MODES.map((m) => pct(r[m])).join(' | ')} |`;
    }),
    '',
    'Index a 100,000-character page (all-MiniLM-L6-v2-shaped graph, random weights; weights: fp32 as pinned, or int8):',
    '',
    '| machine | EP | weights | threads | chunks | tokens | session create | index page | per chunk | one question | adapter |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...index.map((r) =>
      'error' in r
        ? `| ${r.machine} | ${r.ep} | ${r.format ?? ''} | | | | | failed: ${r.error} | | | |`
        : `| ${r.machine} | ${r.ep} | ${r.format} | ${r.threads} | ${r.chunks} | ${r.tokens} | ${r.sessionCreateMs} ms | ${r.indexMs} ms | ${r.perChunkMs} ms | ${r.questionMs} ms | ${r.adapter ?? ''} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  if (process.argv.includes('--rewrite')) {
    await runRewriteBench(arg('--out'));
    process.exit(0);
  }
  if (process.argv.includes('--gpu-kit')) {
    mkdirSync('bench/out/retrieval-kit', { recursive: true });
    writeFileSync('bench/out/retrieval-kit/retrieval-batches.json', JSON.stringify(await tokenizedPage()));
    writeFileSync('bench/out/retrieval-kit/retrieval-whole.json', JSON.stringify(await packedWholePages()));
    execFileSync(
      'npx',
      [
        'rolldown',
        'bench/retrieval/gpu-index.ts',
        '--platform',
        'node',
        '--format',
        'esm',
        '--no-codeSplitting',
        '-o',
        'bench/out/retrieval-kit/retrieval-index.mjs',
      ],
      { stdio: 'inherit' },
    );
    return;
  }
  const { embedder, close } = await fixtureEmbedder();
  const recall = await measureRecall(embedder);
  await close();
  const whole = await measureWholePages();
  const page = await tokenizedPage();
  const here = `this machine (${os.cpus().length} cores)`;
  const index: IndexRow[] = [];
  for (const threads of (arg('--threads') ?? '1').split(',').map(Number))
    index.push({ machine: here, ...(await measureIndexTime(page, { ep: 'wasm', threads, distDir: defaultDistDir() })) });
  // Rows measured on the GPU machine by gpu-index.ts: --gpu <file.json>[,<file.json>] --gpu-host "<label>"
  for (const file of (arg('--gpu') ?? '').split(',').filter((f) => f && existsSync(f)))
    for (const row of JSON.parse(readFileSync(file, 'utf8')) as IndexRow[])
      index.push({ ...row, machine: arg('--gpu-host') ?? 'GPU machine' });
  const doc = {
    meta: {
      date: new Date().toISOString(),
      host: { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.versions.node },
      fusion: { k: pageTunables.fusionK, lexical: pageTunables.fusionLexicalWeight, dense: pageTunables.fusionDenseWeight },
      embedder: 'tests/fixtures/embed (SIF-weighted GloVe 100-d in the pinned bundle contract), not all-MiniLM-L6-v2',
    },
    recall,
    wholePages: whole,
    index,
  };
  const md = `${markdown(recall, index)}\n${wholePageMarkdown(whole)}`;
  process.stdout.write(md);
  const out = arg('--out');
  if (out) {
    writeFileSync(`${out}.json`, `${JSON.stringify(doc, null, 2)}\n`);
    writeFileSync(`${out}.md`, md);
  }
  process.exit(0);
}

void main();
