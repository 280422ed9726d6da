/**
 * Merges the product-loop results (product-*.json from scripts/bench/product-run.sh) into one JSON and a markdown table.
 *   npx jiti bench/product/report.ts <dir with product-*.json> --out bench/results/<date>-product-loops
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PauseProbe } from './pause-probe';

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
/** Older results lack the ASR-first timing. */
type Pause = Omit<PauseProbe, 'rounds' | 'asrLeadMs'> & { asrLeadMs?: number };
/** The pause: the end-of-turn question and the drafted transcription, alone and started together (pause-probe.ts). */
const pauseRow = (r: Result): string[] => {
  const p = r.pause as Pause | undefined;
  if (!p) return [];
  return [
    `| pause (${p.seconds} s clip): end-of-turn question on ${p.turnDevice} + drafted transcription | ${r.runtime} | alone ${p.turnAloneMs} / ${p.asrAloneMs} | together ${p.turnWithAsrMs} / ${p.asrWithTurnMs} | **${Math.round((p.turnWithAsrMs / p.turnAloneMs) * 100) / 100} / ${Math.round((p.asrWithTurnMs / p.asrAloneMs) * 100) / 100}** | question / transcription, ms from the common start; ratio = together / alone |`,
    ...(p.asrLeadMs === undefined
      ? []
      : [
          `| pause (${p.seconds} s clip): drafted transcription started ${p.asrLeadMs} ms before the question | ${r.runtime} | alone ${p.turnAloneMs} / ${p.asrAloneMs} | ASR first ${p.turnAfterAsrMs} / ${p.asrLeadingMs} | **${Math.round((p.turnAfterAsrMs / p.turnAloneMs) * 100) / 100} / ${Math.round((p.asrLeadingMs / p.asrAloneMs) * 100) / 100}** | question / transcription, each from its own start; ratio = ASR first / alone |`,
        ]),
  ];
};
const row = (r: Result): string =>
  r.bench === 'product-asr-loop'
    ? [...asrRows(r), ...pauseRow(r)].join('\n')
    : r.bench === 'product-llm-loop'
      ? `| LLM token (LFM2-1.2B-shaped, ${String(r.dtype)}) | ${r.runtime} | ${String(r.medianLoopMsPerToken)} | ${String(r.medianRunMsPerToken)} | **${String(r.medianLoopOverRun)}** | ${r.perRound.length - 1} rounds × ${String(r.tokensPerRound)} tokens |`
      : ttsRows(r).join('\n');
/** The TTS loop; on WebGPU also the same loop with host-array voice and Mimi states (before gpu-inputs.ts). */
function ttsRows(r: Result): string[] {
  const rounds = r.perRound.length - 1;
  const rows = [
    `| TTS frame (Pocket-shaped, ${String(r.graphs)}${r.gpuInputs ? ', voice and fresh Mimi states uploaded once' : ''}) | ${r.runtime} | ${String(r.medianLoopMsPerFrame)} | ${String(r.medianRunMsPerFrame)} | **${String(r.medianLoopOverRun)}** | ${rounds} rounds; ${String(r.medianTimesRealtime)}× real time, first audio ${String(r.medianFirstAudioMs)} ms |`,
  ];
  const h = r.hostInputs as Record<string, number> | undefined;
  if (h) {
    const firstAudioRatio = Math.round(((r.medianFirstAudioMs as number) / h.medianFirstAudioMs!) * 100) / 100;
    rows.push(
      `| TTS frame (same, voice and Mimi states handed over as host arrays every chunk) | ${r.runtime} | ${h.medianLoopMsPerFrame} | ${h.medianRunMsPerFrame} | **${h.medianLoopOverRun}** | ${rounds} rounds, same run; ${h.medianTimesRealtime}× real time, first audio ${h.medianFirstAudioMs} ms (uploaded once / host arrays: **${firstAudioRatio}**) |`,
    );
  }
  return rows;
}
type Probe = { fromVoice: Record<string, number>; continued: Record<string, number>; step: number; splitMaxAbsDiff: number };
const probes = results.filter((r) => r.prefillProbe);
const probeTable = probes.length
  ? [
      '',
      'Text prefill cost by length (median of 5; host-array voice states; `continued` = after 8 tokens already prefilled):',
      '',
      '| runtime | prefill from the voice, n = 1 / 2 / 4 / 8 / 16 tokens (ms) | continued, same n (ms) | one step (ms) | 16 vs 8+8: max abs diff |',
      '|---|---|---|---|---|',
      ...probes.map((r) => {
        const p = r.prefillProbe as Probe;
        return `| ${r.runtime} | ${Object.values(p.fromVoice).join(' / ')} | ${Object.values(p.continued).join(' / ')} | ${p.step} | ${p.splitMaxAbsDiff.toPrecision(2)} |`;
      }),
    ]
  : [];
const md = [
  '# Product loops against the raw runtime',
  '',
  '```',
  machine.trim(),
  '```',
  '',
  '| step | runtime | product loop ms | session.run ms | loop / run | runs |',
  '|---|---|---|---|---|---|',
  // The pipeline bench has no loop/run split: its per-turn rows and percentiles stay in its own JSON.
  ...results.filter((r) => r.bench !== 'product-pipeline-loop').map(row),
  '',
  'Medians over the rounds after the first (which pays kernel and shader set-up). "session.run ms" is the time inside the',
  "model's own `session.run` calls made by the product's loop in the same steps; the ratio is the loop's overhead.",
  ...probeTable,
  '',
].join('\n');
writeFileSync(`${out}.md`, md);
console.log(md);
