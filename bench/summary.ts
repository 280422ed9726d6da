/**
 * One table of every committed benchmark number: the newest GPU stage results (bench/results/*-h200.json), the
 * pipeline budget computed from them (*-h200-budget.json) and the peers' figures. With `--smoke` it first runs the
 * stage benches' smoke mode here (tiny graphs, WASM) and adds its validity line.
 *
 *   npx jiti bench/summary.ts [--results bench/results/<date>-h200.json] [--smoke] [--json]
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PEERS } from './pipeline-budget';
import type { Stats } from './stages/measure';
import { smokeJobs } from './stages/plans';
import type { StagesDoc } from './stages/report';
import { defaultDistDir, runInProcess } from './stages/run';

interface Row {
  area: string;
  config: string;
  metric: string;
  p50: string;
  p90: string;
}

const f = (x: unknown, d = 1): string => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(d) : '–');

function newest(pattern: RegExp): string | null {
  const dir = resolve(process.cwd(), 'bench/results');
  if (!existsSync(dir)) return null;
  const files = readdirSync(dir)
    .filter((n) => pattern.test(n))
    .sort();
  return files.length ? resolve(dir, files[files.length - 1]!) : null;
}

export function stageRows(doc: StagesDoc): Row[] {
  const rows: Row[] = [];
  for (const r of doc.results) {
    if (r.error || !r.valid) {
      rows.push({ area: r.stage, config: r.id, metric: 'INVALID', p50: r.error ?? 'output check failed', p90: '' });
      continue;
    }
    const cfg = `${r.id} (${r.dtype}${r.threads > 1 ? `, ${r.threads} threads` : ''})`;
    const m = r.metrics;
    if (r.stage === 'overhead') {
      rows.push({
        area: 'runtime',
        config: cfg,
        metric: 'session.run fixed cost (ms)',
        p50: f((m.oneOpRunMs as Stats).median, 3),
        p90: f((m.oneOpRunMs as Stats).p90, 3),
      });
      rows.push({ area: 'runtime', config: cfg, metric: 'cost per kernel dispatch (µs)', p50: f(m.perDispatchUs), p90: '' });
    } else if (r.stage === 'llm') {
      for (const [n, s] of Object.entries(m.ttftNoCache as Record<string, Stats>))
        rows.push({
          area: 'LLM',
          config: cfg,
          metric: `TTFT, ${n}-token prompt, no cache (ms)`,
          p50: f(s.median),
          p90: f(s.p90),
        });
      for (const [n, s] of Object.entries(m.ttftCachedPrefix as Record<string, Stats & { newTokens: number }>))
        rows.push({
          area: 'LLM',
          config: cfg,
          metric: `TTFT, ${n}-token prompt, cached prefix + ${s.newTokens} new (ms)`,
          p50: f(s.median),
          p90: f(s.p90),
        });
      for (const [n, d] of Object.entries(m.decode as Record<string, { msPerToken: Stats; tokensPerSecond: number }>))
        rows.push({
          area: 'LLM',
          config: cfg,
          metric: `decode at ${n} context (ms/token; tokens/s)`,
          p50: `${f(d.msPerToken.median, 2)}; ${f(d.tokensPerSecond)}`,
          p90: f(d.msPerToken.p90, 2),
        });
      const cpu = m.decodeCpuKv as { context: number; msPerToken: Stats } | undefined;
      if (cpu)
        rows.push({
          area: 'LLM',
          config: cfg,
          metric: `decode at ${cpu.context}, KV read back to CPU (ms/token)`,
          p50: f(cpu.msPerToken.median, 2),
          p90: f(cpu.msPerToken.p90, 2),
        });
    } else if (r.stage === 'tts') {
      const c = `${cfg}${r.variant ? ` ${r.variant}` : ''}`;
      rows.push({
        area: 'TTS',
        config: c,
        metric: 'first audio, warm (ms)',
        p50: f((m.firstAudioMs as Stats).median),
        p90: f((m.firstAudioMs as Stats).p90),
      });
      rows.push({
        area: 'TTS',
        config: c,
        metric: '80 ms frame (ms); × real time',
        p50: `${f((m.frameMs as Stats).median)}; ${f(m.timesRealtime, 2)}×`,
        p90: f((m.frameMs as Stats).p90),
      });
    } else if (r.stage === 'asr') {
      const c = `${cfg} ${r.variant ?? 'moonshine-base'}`;
      for (const p of m.perLength as { seconds: number; msPerAudioSecond: number; totalMs: number }[])
        rows.push({
          area: 'ASR',
          config: c,
          metric: `${p.seconds} s clip: total (ms); ms per audio second`,
          p50: `${f(p.totalMs)}; ${f(p.msPerAudioSecond)}`,
          p90: '',
        });
    } else if (r.stage === 'detector') {
      const fr = m.frameMs as Stats;
      rows.push({
        area: 'vision',
        config: cfg,
        metric: `detector frame ${m.inputSize}² (ms); frames/s`,
        p50: `${f(fr.median)}; ${f(m.fps)}`,
        p90: f(fr.p90),
      });
      rows.push({
        area: 'vision',
        config: cfg,
        metric: 'detector session create; first frame (ms)',
        p50: `${f(m.sessionCreateMs, 0)}; ${f(m.firstFrameMs, 0)}`,
        p90: '',
      });
    } else if (r.stage === 'capture') {
      const plan = m.plan as { context: number; capacity: number };
      const off = (m.off as { msPerToken: Stats }).msPerToken;
      const on = m.on as { msPerToken?: Stats; skipped?: string };
      const metric = `decode at ${plan.context} context, static KV ${plan.capacity}, graph capture`;
      rows.push({ area: 'LLM', config: cfg, metric: `${metric} off (ms/token)`, p50: f(off.median, 2), p90: f(off.p90, 2) });
      rows.push({
        area: 'LLM',
        config: cfg,
        metric: `${metric} on (ms/token)`,
        p50: on.msPerToken ? `${f(on.msPerToken.median, 2)}; ${f(m.speedup, 2)}× faster` : `not run: ${on.skipped ?? '?'}`,
        p90: on.msPerToken ? f(on.msPerToken.p90, 2) : '',
      });
    }
  }
  return rows;
}

function budgetRows(file: string): Row[] {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as {
    rows: {
      profile: string;
      speculate: boolean;
      eosToFirstAudioP50: number;
      eosToFirstAudioP90: number;
      floor100GBsMs: number;
    }[];
  };
  return doc.rows.map((r) => ({
    area: 'pipeline',
    config: `${r.profile}${r.speculate ? ', speculative endpointing' : ''}`,
    metric: `end of speech → first audio (ms) [floor @ 100 GB/s: ${r.floor100GBsMs}]`,
    p50: String(r.eosToFirstAudioP50),
    p90: String(r.eosToFirstAudioP90),
  }));
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const at = (n: string) => (argv.indexOf(n) >= 0 ? argv[argv.indexOf(n) + 1] : undefined);
  const rows: Row[] = [];
  const sources: string[] = [];
  if (argv.includes('--smoke')) {
    const doc = await runInProcess(
      smokeJobs(),
      { distDir: defaultDistDir(), dawnToggles: [], liftoffOnly: true, log: () => {} },
      'smoke',
    );
    const valid = doc.results.filter((r) => r.valid).length;
    rows.push({
      area: 'smoke',
      config: `stage benches, tiny graphs, WASM (${doc.meta.versions ? (doc.meta.versions as Record<string, string>).onnxruntimeWeb : ''})`,
      metric: 'jobs with valid outputs',
      p50: `${valid}/${doc.results.length}`,
      p90: '',
    });
  }
  const stagesFile = at('--results') ?? newest(/-h200\.json$/);
  if (stagesFile) {
    const doc = JSON.parse(readFileSync(stagesFile, 'utf8')) as StagesDoc;
    sources.push(
      `${stagesFile} (${doc.meta.date}; ${(doc.meta.adapter as { description?: string } | null)?.description ?? 'no GPU'}; ${JSON.stringify(doc.meta.versions)})`,
    );
    rows.push(...stageRows(doc));
    const budget = stagesFile.replace(/\.json$/, '-budget.json');
    if (existsSync(budget)) {
      sources.push(budget);
      rows.push(...budgetRows(budget));
    }
  }
  for (const p of PEERS)
    rows.push({ area: 'peer', config: p.who, metric: `end of speech → first audio (ms) [${p.source}]`, p50: p.p50, p90: p.p90 });
  if (argv.includes('--json')) console.log(JSON.stringify({ sources, rows }, null, 2));
  console.log(`Sources: ${sources.join('; ') || 'none (no bench/results/*-h200.json)'}\n`);
  console.log('| area | configuration | metric | p50 | p90 |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.area} | ${r.config} | ${r.metric} | ${r.p50} | ${r.p90} |`);
  process.exit(0);
}

if (process.argv.some((a) => /bench\/summary\.ts$/.test(a))) void main();
