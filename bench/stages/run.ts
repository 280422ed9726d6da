/**
 * Stage benches on onnxruntime-web in Node: real-size random-weight graphs of the LLM, Pocket TTS, Moonshine,
 * Whisper and the D-FINE vision detector, plus graph capture on/off for the LLM decode step, timed on the WebGPU EP
 * (dawn.node) and the WASM EP. Prints JSON, then a markdown table.
 *
 *   npx jiti bench/stages/run.ts --smoke                     tiny graphs, WASM, in-process; exits 1 if any output is
 *                                                            invalid (all-zero / non-finite) — the CI check
 *   npx jiti bench/stages/run.ts --jobs gpu --webgpu-module <dir>/webgpu/index.js [--dist <ort dist>] --out <file>
 *                                                            every job of the GPU plan, each in its own process
 *   … --jobs smoke-webgpu --webgpu-module …                  the tiny graphs on WebGPU (lavapipe dry run)
 *   … --only id1,id2                                         a subset of the plan; `--only 'x-*'` (quoted) takes
 *                                                            every job whose id starts with `x-`
 *   … --timeout-s 120 --deadline-s 520                       per-job kill limit (unless the job sets one) and a
 *                                                            whole-run budget after which remaining jobs are skipped
 *
 * On the GPU machine this runs as one bundled file (scripts/bench/build-gpu-kit.sh, scripts/bench/gpu-run.sh).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gpuJobs, smokeJobs, smokeWebgpuJobs, type Job } from './plans';
import { loadOrt, releaseGpu, type OrtEnv } from './ort-env';
import { renderMarkdown, type StagesDoc } from './report';
import { benchCapture } from './capture-bench';
import { benchDetector } from './detector-bench';
import { benchTurn } from './turn-bench';
import { benchAsr, benchLlm, benchOverhead, benchTts, type StageResult } from './stage-bench';
import { benchWhisper } from './whisper-bench';

export interface RunOptions {
  distDir: string;
  webgpuModule?: string;
  dawnToggles: string[];
  liftoffOnly: boolean;
  log: (msg: string) => void;
}

const HERE = dirname(fileURLToPath(import.meta.url));

export function defaultDistDir(): string {
  const candidates = [
    resolve(HERE, 'ort'),
    resolve(HERE, '../../node_modules/onnxruntime-web/dist'),
    resolve(process.cwd(), 'node_modules/onnxruntime-web/dist'),
  ];
  return candidates.find((d) => existsSync(`${d}/ort.webgpu.mjs`)) ?? candidates[candidates.length - 1]!;
}

export async function runJob(
  env: OrtEnv,
  job: Job,
  log: (m: string) => void,
): Promise<StageResult & { id: string; wallMs: number }> {
  const ctx = { ort: env.ort, ep: job.ep, threads: job.threads, log };
  const t0 = performance.now();
  log(`job ${job.id}`);
  let r: StageResult;
  try {
    if (job.stage === 'overhead') r = await benchOverhead(ctx, job.reps);
    else if (job.stage === 'llm') r = await benchLlm(ctx, job.plan);
    else if (job.stage === 'tts') r = await benchTts(ctx, job.plan);
    else if (job.stage === 'whisper') r = await benchWhisper(ctx, job.plan);
    else if (job.stage === 'detector') r = await benchDetector(ctx, job.plan);
    else if (job.stage === 'capture') r = await benchCapture(ctx, job.plan);
    else if (job.stage === 'turn') r = await benchTurn(ctx, job.plan);
    else r = await benchAsr(ctx, job.plan);
  } catch (e) {
    const err = e instanceof Error ? `${e.message}`.split('\n')[0]!.slice(0, 600) : String(e);
    log(`  FAILED: ${err}`);
    r = {
      stage: resultStage(job),
      ep: job.ep,
      dtype: 'plan' in job ? String((job.plan as { dtype?: string }).dtype ?? '') : '',
      threads: job.threads,
      valid: false,
      graphs: [],
      metrics: {},
      validity: [],
      error: err,
    };
  }
  return { id: job.id, ...r, wallMs: Math.round(performance.now() - t0) };
}

/** Whisper jobs report as ASR results (same table and fields as Moonshine, told apart by `variant`). */
function resultStage(job: Job): StageResult['stage'] {
  return job.stage === 'whisper' ? 'asr' : job.stage;
}

/** `--only` ids; an entry ending in `*` selects every job whose id starts with the rest. */
export function selectJobs(jobs: Job[], only: string[] | undefined): Job[] {
  if (!only) return jobs;
  return jobs.filter((j) => only.some((o) => (o.endsWith('*') ? j.id.startsWith(o.slice(0, -1)) : j.id === o)));
}

function hostInfo(): Record<string, unknown> {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memGB: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.platform()} ${os.release()}`,
  };
}

async function versions(opts: RunOptions, env: OrtEnv | null): Promise<Record<string, string>> {
  const v: Record<string, string> = { node: process.versions.node, onnxruntimeWeb: env?.version ?? 'unknown' };
  try {
    const pkg = JSON.parse(readFileSync(resolve(opts.distDir, '../package.json'), 'utf8')) as { version: string };
    v.onnxruntimeWeb = pkg.version;
  } catch {
    /* kit layout without package.json */
  }
  if (opts.webgpuModule) {
    try {
      v.webgpu = (
        JSON.parse(readFileSync(resolve(dirname(opts.webgpuModule), 'package.json'), 'utf8')) as { version: string }
      ).version;
    } catch {
      /* unknown */
    }
  }
  return v;
}

/** Runs jobs in this process (one ORT instance). */
export async function runInProcess(jobs: Job[], opts: RunOptions, mode: string): Promise<StagesDoc> {
  const webgpu = jobs.some((j) => j.ep === 'webgpu');
  const threads = Math.max(...jobs.map((j) => j.threads));
  const env = await loadOrt({
    distDir: opts.distDir,
    webgpu,
    webgpuModule: opts.webgpuModule,
    numThreads: threads,
    dawnToggles: opts.dawnToggles,
    liftoffOnly: opts.liftoffOnly,
  });
  const results: StagesDoc['results'] = [];
  for (const job of jobs) results.push(await runJob(env, job, opts.log));
  return {
    meta: {
      date: new Date().toISOString(),
      mode,
      host: hostInfo(),
      adapter: env.adapter,
      versions: await versions(opts, env),
      dawnToggles: opts.dawnToggles,
    },
    results,
  };
}

/** Runs each job in a child process (isolation: a crash or hang costs one job), merging the results. */
async function runSpawned(
  jobs: Job[],
  opts: RunOptions,
  mode: string,
  argvPrefix: string[],
  passArgs: string[],
  timeoutS: number,
  deadlineS: number,
): Promise<StagesDoc> {
  const start = performance.now();
  const results: StagesDoc['results'] = [];
  let adapter: unknown = null;
  let vers: Record<string, string> = {};
  const tmp = resolve(os.tmpdir(), `sidetalk-stages-${process.pid}`);
  mkdirSync(tmp, { recursive: true });
  for (const job of jobs) {
    const file = resolve(tmp, `${job.id}.json`);
    const t0 = performance.now();
    const left = deadlineS - (t0 - start) / 1000;
    const limit = Math.min(job.timeoutS ?? timeoutS, left);
    if (limit < 20) {
      results.push({
        id: job.id,
        stage: resultStage(job),
        ep: job.ep,
        dtype: '',
        threads: job.threads,
        valid: false,
        graphs: [],
        metrics: {},
        validity: [],
        error: `skipped: run deadline (${deadlineS} s) reached`,
      });
      opts.log(`  ${job.id}: skipped (deadline)`);
      continue;
    }
    const code = await new Promise<number | null>((done) => {
      const child = spawn(argvPrefix[0]!, [...argvPrefix.slice(1), ...passArgs, '--child', job.id, '--result', file], {
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), limit * 1000);
      child.on('exit', (c, sig) => {
        clearTimeout(timer);
        done(sig ? -1 : c);
      });
    });
    if (existsSync(file)) {
      const doc = JSON.parse(readFileSync(file, 'utf8')) as StagesDoc;
      results.push(...doc.results);
      adapter = doc.meta.adapter ?? adapter;
      vers = { ...vers, ...(doc.meta.versions as Record<string, string>) };
    } else {
      results.push({
        id: job.id,
        stage: resultStage(job),
        ep: job.ep,
        dtype: '',
        threads: job.threads,
        valid: false,
        graphs: [],
        metrics: {},
        validity: [],
        error:
          code === -1 ? `killed after ${Math.round(limit)} s (or crashed by signal)` : `process exited ${code} without a result`,
        wallMs: Math.round(performance.now() - t0),
      });
    }
    opts.log(`  ${job.id}: exit ${code}, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  return {
    meta: { date: new Date().toISOString(), mode, host: hostInfo(), adapter, versions: vers, dawnToggles: opts.dawnToggles },
    results,
  };
}

function arg(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

function jobList(name: string): Job[] {
  if (name === 'gpu') return gpuJobs();
  if (name === 'smoke') return smokeJobs();
  if (name === 'smoke-webgpu') return smokeWebgpuJobs();
  throw new Error(`unknown job list ${name}`);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const smoke = argv.includes('--smoke');
  const listName = arg(argv, '--jobs') ?? (smoke ? 'smoke' : 'gpu');
  const only = arg(argv, '--only')?.split(',');
  const webgpuModule = arg(argv, '--webgpu-module');
  const opts: RunOptions = {
    distDir: arg(argv, '--dist') ?? defaultDistDir(),
    webgpuModule: webgpuModule ? resolve(webgpuModule) : undefined,
    dawnToggles: (arg(argv, '--dawn-toggles') ?? 'enable-dawn-features=vulkan_enable_f16_on_nvidia').split(';').filter(Boolean),
    liftoffOnly: argv.includes('--liftoff-only') || smoke || listName.startsWith('smoke'),
    log: (m) => process.stderr.write(`${m}\n`),
  };
  let jobs = jobList(listName);
  jobs = selectJobs(jobs, only);
  const out = arg(argv, '--out');

  const child = arg(argv, '--child');
  if (child) {
    const job = jobs.find((j) => j.id === child);
    if (!job) throw new Error(`no job ${child}`);
    const doc = await runInProcess([job], opts, listName);
    writeFileSync(arg(argv, '--result')!, JSON.stringify(doc));
    releaseGpu();
    process.exit(0);
  }

  let doc: StagesDoc;
  if (argv.includes('--in-process') || smoke) {
    doc = await runInProcess(jobs, opts, listName);
  } else {
    const scriptAt = process.argv.findIndex((a, i) => i > 0 && /(run\.ts|\.mjs)$/.test(a) && !a.includes('jiti'));
    const prefix = [process.execPath, ...process.execArgv, ...process.argv.slice(1, scriptAt + 1)];
    const pass = [
      '--jobs',
      listName,
      '--dist',
      opts.distDir,
      '--dawn-toggles',
      opts.dawnToggles.join(';'),
      ...(opts.webgpuModule ? ['--webgpu-module', opts.webgpuModule] : []),
      ...(opts.liftoffOnly ? ['--liftoff-only'] : []),
    ];
    doc = await runSpawned(
      jobs,
      opts,
      listName,
      prefix,
      pass,
      Number(arg(argv, '--timeout-s') ?? 120),
      Number(arg(argv, '--deadline-s') ?? 3600),
    );
  }
  const json = JSON.stringify(doc, null, 2);
  if (out) {
    mkdirSync(dirname(resolve(out)), { recursive: true });
    writeFileSync(out, json);
    writeFileSync(out.replace(/\.json$/, '.md'), renderMarkdown(doc));
  }
  console.log(json);
  console.log(`\n${renderMarkdown(doc)}`);
  releaseGpu();
  const invalid = doc.results.filter((r) => !r.valid);
  process.exit(invalid.length ? 1 : 0);
}

const invokedDirectly = process.argv.some((a) => /stages\/run\.ts$|gpu-bench\.mjs$/.test(a));
if (invokedDirectly)
  void main().catch((e) => {
    console.error(e);
    process.exit(2);
  });
