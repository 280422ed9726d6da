/**
 * Merges the product-loop results (product-*.json from scripts/bench/product-run.sh) into one JSON and a markdown table.
 *   npx jiti bench/product/report.ts <dir with product-*.json> --out bench/results/<date>-product-loops
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2]!;
const out = process.argv[process.argv.indexOf('--out') + 1]!;
type Result = Record<string, unknown> & { bench: string; runtime: string; perRound: unknown[] };
const results = readdirSync(dir)
  .filter((f) => /^product-.*\.json$/.test(f))
  .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Result);
const machine = readdirSync(dir).includes('machine.txt') ? readFileSync(join(dir, 'machine.txt'), 'utf8') : '';
writeFileSync(`${out}.json`, JSON.stringify({ machine, results }, null, 2));
type Clip = { seconds: number; full: Record<string, number>; drafted: Record<string, number> };
const asrRows = (r: Result) =>
  (r.perClip as Clip[]).flatMap((c) =>
    (['full', 'drafted'] as const).map((k) => {
      const m = c[k];
      const what = k === 'full' ? `${m.tokens} tokens` : `a draft of ${m.draftAccepted} of ${m.tokens} tokens`;
      return `| ASR ${c.seconds} s clip, ${what} (Moonshine-base-shaped fp32, sessions ${JSON.stringify(r.sessions)}) | ${r.runtime} | ${m.ms} | ${m.runMs} | **${m.loopOverRun}** | ${(r.perClip as Clip[]).length} clips × ${(r.rounds as number) - 1} rounds; encoder ${m.encoderMs} ms, ${m.decoderRuns} decoder runs of ${m.decoderMsPerRun} ms |`;
    }),
  );
const row = (r: Result): string =>
  r.bench === 'product-asr-loop'
    ? asrRows(r).join('\n')
    : r.bench === 'product-llm-loop'
      ? `| LLM token (LFM2-1.2B-shaped, ${String(r.dtype)}) | ${r.runtime} | ${String(r.medianLoopMsPerToken)} | ${String(r.medianRunMsPerToken)} | **${String(r.medianLoopOverRun)}** | ${r.perRound.length - 1} rounds × ${String(r.tokensPerRound)} tokens |`
      : `| TTS frame (Pocket-shaped, ${String(r.graphs)}) | ${r.runtime} | ${String(r.medianLoopMsPerFrame)} | ${String(r.medianRunMsPerFrame)} | **${String(r.medianLoopOverRun)}** | ${r.perRound.length - 1} rounds; ${String(r.medianTimesRealtime)}× real time, first audio ${String(r.medianFirstAudioMs)} ms |`;
const md = [
  '# Product loops against the raw runtime',
  '',
  '```',
  machine.trim(),
  '```',
  '',
  '| step | runtime | product loop ms | session.run ms | loop / run | runs |',
  '|---|---|---|---|---|---|',
  ...results.map(row),
  '',
  'Medians over the rounds after the first (which pays kernel and shader set-up). "session.run ms" is the time inside the',
  "model's own `session.run` calls made by the product's loop in the same steps; the ratio is the loop's overhead.",
  '',
].join('\n');
writeFileSync(`${out}.md`, md);
console.log(md);
