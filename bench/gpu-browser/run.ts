/**
 * What the user hears, measured in Chromium on a hardware GPU (docs/benchmarks.md, "Chromium on the GPU machine"):
 * the built extension (test build, pinned to the real-size random-weight hub of gpu-hub.ts) in Debian's Chromium on the
 * accelerator machine, its models downloaded through the real download code from that hub, WebGPU chosen by the
 * product's own device selection, a fake microphone speaking scripted questions (bench/browser-latency/mic-script.ts),
 * hands-free on, until `--turns` replies have been heard. Per turn, the waterfall of core/trace/turn-hops.ts from the
 * turn trace; besides it the panel's animation frame times (the avatar drawn on the GPU), GPU memory (nvidia-smi)
 * after load and after the turns, and where each model ran.
 *
 * Runs on the GPU machine from the bundle scripts/bench/build-browser-kit.sh makes (node + playwright-core beside it),
 * through scripts/bench/chromium-gpu-bench.sh, which sets SIDETALK_CHROMIUM to a wrapper with the GPU flags:
 *   node gpu-browser.mjs --extension DIR --hub ROOT --mic WAV --out PREFIX [--turns 20] [--minutes 7] [--set s.k=v]
 *     [--backend auto|wasm]   (wasm: a dry run of the whole path on a machine without a GPU)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { traceSchemas, type TurnTraceExport } from '../../core/protocol/trace';
import { waterfalls } from '../../core/trace/turn-hops';
import { ASR_BUNDLES, LLM_BUNDLE, TTS_BUNDLE, TTS_GPU_BUNDLE, TURN_BUNDLE } from '../../models/registry';
import { startHubServer } from '../../tests/fixtures/hub/server';
import { downloadModels, launchExtension, poll, request, sendFromPage } from '../../tests/e2e/harness';
import { MIC_SCRIPT } from '../browser-latency/mic-script';
import { longTaskSummary, markdown, percentile, summarise } from '../browser-latency/report';
import { manifestHash, writeGpuHub } from './gpu-hub';

function arg(name: string, fallback = ''): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}
const TURNS = Number(arg('turns', '20'));
const MINUTES = Number(arg('minutes', '7'));
const OUT = arg('out');
const EXTENSION = arg('extension');
const HUB_ROOT = arg('hub', '/root/gpu-hub');
const MIC = arg('mic');
/** The fake microphone's least silence after each question (write-mic.ts --gap; 0: the script's own 2–6 s). */
const MIC_GAP_S = Number(arg('mic-gap', '0'));
/** 'auto' is the product's default (WebGPU where there is one); 'wasm' only for a dry run without a GPU. */
const BACKEND = arg('backend', 'auto');
/**
 * Stand-ins for what random weights cannot do, each stated in the results file: a reply's length (random weights never
 * sample the end token, so every reply would run to the 256-token cap), and the voice's GPU self-test opened to noise.
 * A random-weight decoder makes noise on every backend, so the self-test's speech-likeness checks (high-frequency
 * share, peak, first frame against the int8 WASM graph) refuse the GPU for a reason a trained voice does not have
 * (the 2026-12-07 runs: "noisy", every reply on WASM); its finite and silence checks stay.
 */
const DEFAULT_SETS = [
  'llm.maxNewTokens=64',
  'tts.selfTestMaxHighFreqShare=1',
  'tts.selfTestMaxPeak=100',
  'tts.selfTestMinSnrDb=0',
];
const SETS = [
  ...DEFAULT_SETS,
  ...process.argv.flatMap((a, i) => (a === '--set' && process.argv[i + 1] ? [process.argv[i + 1]!] : [])),
];

async function trace(page: Page): Promise<TurnTraceExport> {
  const r = await sendFromPage<{ ok: boolean; data?: unknown; error?: unknown }>(page, request('debug/turn-trace', 'offscreen'));
  if (!r.ok) throw new Error(`debug/turn-trace: ${JSON.stringify(r.error)}`);
  return traceSchemas().TurnTraceExportSchema.parse(r.data);
}

const heardTurns = (t: TurnTraceExport) => new Set(t.stamps.filter((s) => s.name === 'panel-audible').map((s) => s.turnId)).size;

function gpuName(): string {
  try {
    return execFileSync('nvidia-smi', ['--query-gpu=name,driver_version', '--format=csv,noheader']).toString().trim();
  } catch {
    return 'no nvidia-smi';
  }
}

function gpuMemoryMiB(): number | null {
  try {
    const out = execFileSync('nvidia-smi', ['--query-gpu=memory.used', '--format=csv,noheader,nounits']).toString();
    return Number(out.trim().split('\n')[0]);
  } catch {
    return null;
  }
}

function stats(values: number[]): { n: number; p50: number | null; p90: number | null; max: number | null } {
  const s = [...values].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p90: percentile(s, 90), max: s.length ? s[s.length - 1]! : null };
}

type Reply<T> = { ok: true; data: T } | { ok: false; error: unknown };
type LlmProbe = {
  backend: string;
  error: string | null;
  firstPieceMs: number | null;
  pieceAtMs: number[];
  totalMs: number;
  sample: string;
};
/** A question of about `chars` characters (this hub's tokenizer: about one token a character of English text). */
const questionOf = (chars: number) =>
  'Please tell me, in a few words, what you think of the sea and the mountains today. '
    .repeat(Math.ceil(chars / 84))
    .slice(0, chars);
/**
 * The LLM probes: the script's first three questions, then prefills of 200, 800 and 1990 characters, each asked twice
 * in a row. A second ask of the same length runs the same shapes again: if it is much faster than the first, the first
 * paid for compiling them (new shapes on this adapter), not for the arithmetic.
 */
const LLM_PROBES = [
  ...MIC_SCRIPT.slice(0, 3).map(([q]) => q),
  ...[200, 800, 1990].flatMap((n) => [questionOf(n), `${questionOf(n - 1)}?`]),
];
type AsrProbe = { backend: string; error: string | null; text: string | null; ms: number };

/** One LLM probe, asked again while the turn that listening left behind still holds the model (up to 60 s). */
async function llmProbe(panel: Page, question: string): Promise<LlmProbe> {
  for (let i = 0; ; i++) {
    const r = await sendFromPage<Reply<LlmProbe>>(panel, request('debug/llm-probe', 'offscreen', { question }));
    if (!r.ok) throw new Error(`debug/llm-probe: ${JSON.stringify(r.error)}`);
    if (!r.data.error?.includes('already running') || i >= 60) return r.data;
    await new Promise((res) => setTimeout(res, 1000));
  }
}

/**
 * The models' own pace on the device the product chose, after the turns with listening off: the LLM answering the
 * probes above (the first pays for whatever the warm-up left), the recogniser on a 3 s clip three times, and the
 * voice's self-test verdict. Per LLM answer: request → first piece, and the median interval between later pieces (a
 * piece is a token or a few).
 */
async function modelProbes(panel: Page) {
  const llm: LlmProbe[] = [];
  for (const question of LLM_PROBES) llm.push(await llmProbe(panel, question));
  const asr: AsrProbe[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await sendFromPage<Reply<AsrProbe>>(panel, request('debug/asr-probe', 'offscreen', { seconds: 3, toneHz: 220 }));
    if (!r.ok) throw new Error(`debug/asr-probe: ${JSON.stringify(r.error)}`);
    asr.push(r.data);
  }
  const verdicts = await sendFromPage<Reply<unknown>>(panel, request('tts/verdicts', 'background', {}));
  const gaps = (at: number[]) => at.slice(1).map((t, i) => t - at[i]!);
  const summary = {
    llmBackend: llm[0]?.backend,
    llmErrors: llm.map((p) => p.error).filter(Boolean),
    llmFirstPieceMs: llm.map((p) => p.firstPieceMs),
    llmPieces: llm.map((p) => p.pieceAtMs.length),
    llmMsPerPieceP50: llm.map((p) =>
      percentile(
        [...gaps(p.pieceAtMs)].sort((a, b) => a - b),
        50,
      ),
    ),
    llmQuestionChars: LLM_PROBES.map((q) => q.length),
    llmSamples: llm.map((p) => p.sample.slice(0, 60)),
    asrMs: asr.map((p) => p.ms),
    asrErrors: asr.map((p) => p.error).filter(Boolean),
  };
  return { summary, llm, asr, ttsVerdicts: verdicts.ok ? verdicts.data : verdicts.error };
}

/**
 * What the turns asked of the LLM and what it wrote (the test build's `debug/llm-log`): per call, the prompt's length in
 * characters (this hub's tokenizer is one token a character for English text), the answer's first characters, and the
 * model's own token counts when it finished (prompt, served from a cache, generated).
 */
async function llmLogSummary(panel: Page) {
  type Entry = { source: string; prompt: string; text: string; tokens?: { prompt: number; cached: number; generated: number } };
  const r = await sendFromPage<Reply<Entry[]>>(panel, request('debug/llm-log', 'offscreen'));
  if (!r.ok) throw new Error(`debug/llm-log: ${JSON.stringify(r.error)}`);
  return r.data.map((e) => ({
    source: e.source,
    promptChars: e.prompt.length,
    textChars: e.text.length,
    text: e.text.slice(0, 60),
    tokens: e.tokens ?? null,
  }));
}

async function main(): Promise<void> {
  if (!EXTENSION || !MIC || !OUT) throw new Error('--extension, --mic and --out are required');
  const phases: Record<string, number> = {};
  let t0 = performance.now();
  const hub = await writeGpuHub(HUB_ROOT);
  phases.writeHubMs = Math.round(performance.now() - t0);
  const pinned = readFileSync(join(EXTENSION, '..', 'gpu-manifest.sha256'), 'utf8').trim();
  const written = manifestHash(hub.manifest);
  if (pinned !== written) throw new Error(`the hub written here (${written}) is not the one the extension pins (${pinned})`);
  const server = await startHubServer(hub.hubOptions);
  const memoryIdle = gpuMemoryMiB();
  const session = await launchExtension({ extensionDir: EXTENSION, micWav: MIC });
  try {
    const panel = await session.openPage('sidepanel.html');
    await panel.setViewportSize({ width: 420, height: 860 });
    const adapter = await panel.evaluate(async () => {
      const a = await (
        navigator as unknown as {
          gpu?: { requestAdapter(): Promise<{ info: Record<string, unknown>; features: Set<string> } | null> };
        }
      ).gpu?.requestAdapter();
      if (!a) return null;
      const i = a.info;
      return {
        vendor: i.vendor,
        architecture: i.architecture,
        description: i.description,
        fallback: i.isFallbackAdapter,
        f16: a.features.has('shader-f16'),
      };
    });
    console.error(`adapter: ${JSON.stringify(adapter)}`);
    t0 = performance.now();
    await downloadModels(
      panel,
      server.url,
      [LLM_BUNDLE.id, ASR_BUNDLES.moonshine.id, TURN_BUNDLE.id, TTS_BUNDLE.id, TTS_GPU_BUNDLE.id],
      600_000,
    );
    phases.downloadMs = Math.round(performance.now() - t0);
    await sendFromPage(panel, request('settings/set', 'background', { patch: { debugPanel: true, computeBackend: BACKEND } }));
    for (const set of SETS) {
      const [path, value] = set.split('=');
      const r = await sendFromPage<{ ok: boolean }>(panel, request('tunables/set', 'background', { path, value: Number(value) }));
      if (!r.ok) throw new Error(`--set ${set}: ${JSON.stringify(r)}`);
    }
    await panel.evaluate(() => {
      const w = window as unknown as { __longTasks: [number, number][]; __frames: number[] };
      w.__longTasks = [];
      w.__frames = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__longTasks.push([e.startTime, e.duration]);
      }).observe({ type: 'longtask', buffered: false });
      let last = performance.now();
      const tick = (now: number) => {
        w.__frames.push(now - last);
        last = now;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    t0 = performance.now();
    await poll(
      () => panel.getByTestId('engine-state').getAttribute('data-ready'),
      (v) => v === 'yes',
      180_000,
      250,
    );
    phases.engineReadyMs = Math.round(performance.now() - t0);
    const status = await sendFromPage<{ ok: boolean; data?: unknown }>(panel, request('status/get', 'background'));
    // Where the model worker's sessions run (its backend, and the GPU buffers it holds).
    const gpuStats = async () =>
      (await sendFromPage<{ ok: boolean; data?: unknown }>(panel, request('debug/gpu-stats', 'offscreen'))).data;
    const statsLoaded = await gpuStats();
    console.error(`model worker: ${JSON.stringify(statsLoaded)}`);
    const memoryLoaded = gpuMemoryMiB();
    await poll(
      () => trace(panel),
      (t) => t.clocks.length > 0,
      30_000,
      250,
    );
    // Random recogniser weights write random text, which the engine rightly discards or answers with a clarifying
    // question, so the LLM would rarely run. The scripted recogniser stand-in (test builds) keeps the real-size
    // recogniser running on every utterance and reports a question of the script instead: re-armed every 15 s.
    let q = 0;
    const armScript = () =>
      sendFromPage(
        panel,
        request('debug/asr-script', 'offscreen', { text: MIC_SCRIPT[q++ % MIC_SCRIPT.length]![0], forMs: 20_000 }),
      );
    await armScript();
    const rearm = setInterval(() => void armScript().catch(() => undefined), 15_000);
    const startedAt = Date.now();
    await panel.getByTestId('orb').click();
    let last = -1;
    const final = await poll(
      async () => {
        const t = await trace(panel);
        const n = heardTurns(t);
        if (n !== last) console.error(`${((Date.now() - startedAt) / 1000).toFixed(0)} s: ${(last = n)} turns heard`);
        return t;
      },
      (t) => heardTurns(t) >= TURNS,
      MINUTES * 60_000,
      1000,
    ).catch(async (e: unknown) => {
      console.error(`stopped early: ${(e as Error).message.slice(0, 200)}`);
      return trace(panel);
    });
    clearInterval(rearm);
    await panel.getByTestId('orb').click();
    // The models alone, once listening has stopped (the probes need the conversation the turns started).
    const probes = await modelProbes(panel).catch((e: unknown) => ({ summary: { error: String(e) }, ttsVerdicts: null }));
    console.error(`probes: ${JSON.stringify(probes.summary)}`);
    const llmLog = await llmLogSummary(panel).catch((e: unknown) => ({ error: String(e) }));
    console.error(`llm log: ${JSON.stringify(llmLog).slice(0, 1200)}`);
    const memoryAfter = gpuMemoryMiB();
    const statsAfter = await gpuStats();
    const statusAfter = await sendFromPage<{ ok: boolean; data?: unknown }>(panel, request('status/get', 'background'));
    const { longTasks, frames } = await panel.evaluate(() => {
      const w = window as unknown as { __longTasks: [number, number][]; __frames: number[] };
      return { longTasks: w.__longTasks, frames: w.__frames };
    });
    const names: Record<string, number> = {};
    for (const s of final.stamps) names[s.name] = (names[s.name] ?? 0) + 1;
    console.error(`stamps: ${JSON.stringify(names)}`);
    const turns = waterfalls(final.stamps);
    const frameStats = stats(frames.slice(10));
    const summary = {
      ...summarise(turns),
      panelLongTasks: longTaskSummary(longTasks, Date.now() - startedAt),
      avatarFrameMs: frameStats,
      gpuMemoryMiB: { idle: memoryIdle, afterLoad: memoryLoaded, afterTurns: memoryAfter },
    };
    const marks = final.stamps.filter((s) => s.context === 'offscreen');
    const meta = {
      date: new Date().toISOString().slice(0, 10),
      machine: `${cpus().length} × ${cpus()[0]?.model ?? '?'}; ${gpuName()}`,
      chromium: session.context.browser()?.version() ?? '?',
      chromiumFlags: process.env.SIDETALK_GPU_FLAGS ?? '',
      adapter,
      status: status.data,
      statusAfter: statusAfter.data,
      modelWorker: { afterLoad: statsLoaded, afterTurns: statsAfter },
      probes,
      llmLog,
      models: hub.models,
      phases,
      tunables: SETS,
      mic: `${MIC_SCRIPT.length} espeak-ng questions with ${MIC_GAP_S ? `≥ ${MIC_GAP_S} s` : '2–6 s'} gaps, looped; transcripts reported as the script's questions by the scripted recogniser stand-in (debug/asr-script) while the real-size recogniser runs`,
      turnsHeard: turns.length,
      interrupted: new Set(marks.filter((s) => s.name === 'interrupted').map((s) => s.turnId)).size,
      panelClock: final.clocks,
      wallSeconds: Math.round((Date.now() - startedAt) / 1000),
      measured:
        'end to end in the browser: every hop and total of the waterfall (engine marks, offscreen and panel stamps on one clock); modeled: nothing',
    };
    const md = `${markdown(summary, meta).replace(/^# .*/, '# What the user hears in Chromium on a hardware GPU (built extension, real-size random-weight graphs)')}\n\nAvatar frame interval (panel requestAnimationFrame): ${JSON.stringify(frameStats)} ms; GPU memory MiB: ${JSON.stringify(summary.gpuMemoryMiB)}\n\nModel probes before the turns after the turns, listening off (debug/llm-probe, debug/asr-probe; the voice's self-test verdicts): ${JSON.stringify(probes.summary)}; ${JSON.stringify(probes.ttsVerdicts)}\n`;
    console.log(md);
    writeFileSync(`${OUT}.json`, `${JSON.stringify({ meta, ...summary, turns, trace: final }, null, 1)}\n`);
    writeFileSync(`${OUT}.md`, md);
    if (session.errors.length) console.error(`console errors:\n${session.errors.slice(0, 20).join('\n')}`);
  } finally {
    await session.close();
    await server.close();
  }
}

if (!existsSync(MIC)) console.error(`no mic wav at ${MIC}`);
main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
