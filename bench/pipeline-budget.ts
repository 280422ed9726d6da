/**
 * End of speech → first audio, from measured pieces: the engine's real-audio scenarios (real Silero VAD, the real
 * DuplexEngine policy on a manual clock; bench/engine/scenarios.ts) run with stage latencies taken from a stage-bench
 * results file (bench/stages; default: the newest bench/results/*-h200.json). Reports p50/p90 per hardware profile,
 * the bandwidth-limit floor for the same work, and the peers' published numbers (docs/benchmarks.md).
 *
 *   npx jiti bench/pipeline-budget.ts [--stages bench/results/<file>.json] [--out bench/results/<file>-budget.json]
 *                                     [--set engine.<knob>=<value> …] [--browser bench/results/<file>-browser-latency.json]
 *                                     [--product bench/results/<a>-product-loops.json,<b>.json]
 * `--product` adds profiles whose stage times come from the product's own loops (bench/budget/product-profiles.ts).
 *
 * "As heard" adds the hops between the stages that only the browser has (TTS worker messaging, offscreen → side
 * panel, the player to the first audible sample), measured by bench/browser-latency (default: the newest
 * bench/results/*-browser-latency.json): p50 = sum of the hops' p50s, p90 = sum of their p90s (an upper bound).
 *
 * Times are simulated-clock ms: exact for the given stage latencies and VAD decisions. The GPU stage times are
 * Dawn-in-Node on the machine named in the results file; Chrome's GPU process adds its own overhead (unmeasured).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { engineTunables, setTunable, snapshotTunables } from '../core/tunables';
import { loadSilero, runScenario, type StageLatency } from '../tests/fixtures/audio/conversation-sim';
import { scenarios } from './engine/scenarios';
import { productProfiles } from './budget/product-profiles';
import type { Stats } from './stages/measure';
import type { StagesDoc } from './stages/report';

type Result = StagesDoc['results'][number];

export interface Profile {
  name: string;
  what: string;
  p50: StageLatency;
  p90: StageLatency;
  /** Bytes streamed per stage, for the bandwidth floor. */
  bytes: { asr: number; llmPass: number; tts: number };
  /** One end-of-turn question (preparation + run, p50 and p90, ms), when the stages file measured it. */
  endOfTurnMs: { p50: number; p90: number } | null;
  /** The scenarios run with ASR drafts on (engine.asrDraftEveryMs 480 and the speech models counted as on the GPU). */
  asrDrafts?: boolean;
}

/**
 * The end-of-turn job the product's path matches: on WebGPU when the profile's models run there, else WASM with 4
 * threads (the offscreen document is cross-origin isolated).
 */
function endOfTurn(doc: StagesDoc, job: string): Profile['endOfTurnMs'] {
  const r = pick(doc, job);
  if (!r) return null;
  return {
    p50: Math.round(q(r.metrics.prepareMs, 'median') + q(r.metrics.runMs, 'median')),
    p90: Math.round(q(r.metrics.prepareMs, 'p90') + q(r.metrics.runMs, 'p90')),
  };
}

const ASR_SECONDS = 2;
const LLM_CONTEXT = '500';

function pick(doc: StagesDoc, id: string): Result | undefined {
  return doc.results.find((r) => r.id === id && r.valid && !r.error);
}

function q(s: unknown, which: 'median' | 'p90'): number {
  return (s as Stats)[which];
}

function asrLatency(r: Result, which: 'median' | 'p90'): number {
  const per = r.metrics.perLength as {
    seconds: number;
    encoderMs: Stats;
    decoderStepMs: Stats;
    decoderTokens: number;
    decoderFirstStepMs: number;
  }[];
  const p = per.reduce((a, b) => (Math.abs(b.seconds - ASR_SECONDS) < Math.abs(a.seconds - ASR_SECONDS) ? b : a));
  const scale = ASR_SECONDS / p.seconds;
  const tokens = Math.ceil(ASR_SECONDS * 4) + 1;
  return Math.round(q(p.encoderMs, which) * scale + tokens * q(p.decoderStepMs, which));
}

/**
 * A transcription of the same utterance given a draft of all but its last `passes` − 1 tokens (ASR drafts): the
 * encoder, then one pass over the prompt and one step per remaining token, from the job's timed drafted decodes.
 */
function asrDraftedLatency(r: Result, which: 'median' | 'p90', passes = 3): number | undefined {
  const per = r.metrics.perLength as { seconds: number; encoderMs: Stats; drafts?: { passes: number; decodeMs: number }[] }[];
  const p = per.reduce((a, b) => (Math.abs(b.seconds - ASR_SECONDS) < Math.abs(a.seconds - ASR_SECONDS) ? b : a));
  const drafted = p.drafts?.find((d) => d.passes === passes);
  if (!drafted) return undefined;
  return Math.round(q(p.encoderMs, which) * (ASR_SECONDS / p.seconds) + drafted.decodeMs);
}

function llm(r: Result, which: 'median' | 'p90', ctx = LLM_CONTEXT): { first: number; token: number } {
  const cached =
    (r.metrics.ttftCachedPrefix as Record<string, Stats>)[ctx] ??
    Object.values(r.metrics.ttftCachedPrefix as Record<string, Stats>)[0]!;
  const dec =
    (r.metrics.decode as Record<string, { msPerToken: Stats }>)[ctx] ??
    Object.values(r.metrics.decode as Record<string, { msPerToken: Stats }>)[0]!;
  return { first: Math.round(q(cached, which)), token: Math.round(q(dec.msPerToken, which)) };
}

function tts(r: Result, which: 'median' | 'p90'): number {
  // First audio of a sentence = text prefill + the first 80 ms frame; p90 adds the frame-time spread.
  const first = q(r.metrics.firstAudioMs, 'median');
  return Math.round(which === 'median' ? first : first + (q(r.metrics.frameMs, 'p90') - q(r.metrics.frameMs, 'median')));
}

function bytesOf(r: Result | undefined, names: string[]): number {
  return (r?.graphs ?? []).filter((g) => names.includes(g.name)).reduce((a, g) => a + g.weightBytes, 0);
}

export function profiles(doc: StagesDoc): Profile[] {
  const out: Profile[] = [];
  const asrGpu = pick(doc, 'webgpu-asr-fp32');
  const llmGpu = pick(doc, 'webgpu-llm-q4');
  const ttsWasm = pick(doc, 'wasm-tts-int8-1t');
  const ttsGpu = pick(doc, 'webgpu-tts-fp32-gpu-states');
  const ttsGpuCpuStates = pick(doc, 'webgpu-tts-fp32-cpu-states');
  const asrWasm = pick(doc, 'wasm-asr-fp32-4t');
  const llmWasm = pick(doc, 'wasm-llm-q4-8t');
  const mk = (
    name: string,
    what: string,
    a: Result | undefined,
    l: Result | undefined,
    t: Result | undefined,
    turnJob: string,
    drafts = false,
  ) => {
    if (!a || !l || !t) return;
    if (drafts && asrDraftedLatency(a, 'median') === undefined) return;
    const lat = (w: 'median' | 'p90'): StageLatency => {
      const x = llm(l, w);
      const drafted = drafts ? { asrDraftedMs: asrDraftedLatency(a, w)! } : {};
      return { asrMs: asrLatency(a, w), ...drafted, llmFirstTokenMs: x.first, llmTokenMs: x.token, ttsMs: tts(t, w) };
    };
    const decodeBytes = (l.metrics.decodeWeightBytes as number) ?? 0;
    const asrTokens = Math.ceil(ASR_SECONDS * 4) + 1;
    const encBytes = bytesOf(a, ['moonshine_encoder']);
    const decBytes = (a.graphs.find((g) => g.name.startsWith('moonshine_decoder'))?.weightBytes ?? 0) - 32768 * 416 * 4; // minus the embedding table
    out.push({
      name,
      what,
      p50: lat('median'),
      p90: lat('p90'),
      bytes: {
        asr: encBytes + asrTokens * decBytes,
        llmPass: decodeBytes,
        tts: bytesOf(t, ['flow_lm_main', 'flow_lm_flow', 'mimi_decoder']),
      },
      endOfTurnMs: endOfTurn(doc, turnJob),
      asrDrafts: drafts,
    });
  };
  mk(
    'as built (H200)',
    'ASR + LLM on WebGPU, Pocket TTS on WASM int8, 1 thread (the default)',
    asrGpu,
    llmGpu,
    ttsWasm,
    'x-webgpu-turn',
  );
  mk(
    'as built + ASR drafts (H200)',
    'as built, with engine.asrDraftEveryMs 480: the utterance transcribed while it is spoken; the last word or two decoded after the endpoint',
    asrGpu,
    llmGpu,
    ttsWasm,
    'x-webgpu-turn',
    true,
  );
  mk(
    'TTS on WebGPU, GPU-resident states (H200)',
    'ASR + LLM + TTS on WebGPU; TTS states kept as GPU buffers',
    asrGpu,
    llmGpu,
    ttsGpu,
    'x-webgpu-turn',
  );
  mk(
    'TTS on WebGPU, CPU states (H200)',
    'TTS on WebGPU with states read back every step (the runtime today, if the self-test picks WebGPU)',
    asrGpu,
    llmGpu,
    ttsGpuCpuStates,
    'x-webgpu-turn',
  );
  mk(
    'all WASM (H200 host CPU)',
    'WebGPU unavailable: ASR 4 threads, LLM 8 threads, TTS int8 1 thread',
    asrWasm,
    llmWasm,
    ttsWasm,
    'x-wasm-turn-4t',
  );
  return out;
}

interface Turn {
  scenario: string;
  speculate: boolean;
  endpointMs: number | null;
  /** From the endpoint to the answered turn's final transcript (0 when it was there first). */
  asrAfterEndpointMs: number | null;
  eosToFirstAudioMs: number | null;
}

async function runProfile(
  vad: Awaited<ReturnType<typeof loadSilero>>,
  latency: StageLatency,
  speculateModes: boolean[],
  endOfTurnMs: number | null,
  asrDrafts = false,
): Promise<Turn[]> {
  const turns: Turn[] = [];
  const draftsKnob = engineTunables.asrDraftEveryMs;
  if (asrDrafts && draftsKnob <= 0) setTunable('engine.asrDraftEveryMs', 480);
  for (const speculate of speculateModes) {
    for (const [name, input] of Object.entries(scenarios())) {
      if (name === 'barge-in') continue; // no end-of-speech → first-audio question there
      // Slow profiles (WASM LLM) need a longer simulated tail to reach the first audio.
      const tailMs = latency.llmTokenMs > 200 ? 40_000 : undefined;
      const endOfTurn = endOfTurnMs === null ? undefined : { latencyMs: endOfTurnMs };
      const r = await runScenario(vad, { ...input, speculate, latency, tailMs, endOfTurn, asrDrafts });
      const firstSpeak = r.marks('first-speak')[0];
      const eos = r.marks('end-of-speech').find((m) => m.turnId === firstSpeak?.turnId) ?? r.marks('end-of-speech')[0];
      const endpoint = r.marks('endpoint').find((m) => m.turnId === eos?.turnId);
      const audio = r.marks('first-audio').find((m) => m.turnId === eos?.turnId);
      const transcript = r.marks('transcript').find((m) => m.turnId === eos?.turnId);
      turns.push({
        scenario: name,
        speculate,
        endpointMs: eos && endpoint ? endpoint.at - eos.at : null,
        asrAfterEndpointMs: endpoint && transcript ? Math.max(0, transcript.at - endpoint.at) : null,
        eosToFirstAudioMs: eos && audio ? audio.at - eos.at : null,
      });
    }
  }
  setTunable('engine.asrDraftEveryMs', draftsKnob);
  return turns;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.round(p * (s.length - 1)))]! : NaN;
}

export const PEERS = [
  {
    who: 'jax-realtime (browser, jax-js WebGPU, Apple silicon), current chunking',
    p50: '1324–1585',
    p90: 'P95 1546–2319',
    source: 'duplex-conversation.md §13',
  },
  { who: 'jax-realtime, best build (cycle 19)', p50: '1335', p90: 'P95 1495', source: 'duplex-conversation.md §13' },
  { who: 'Pipecat fully local, M-series Mac (voice-to-voice)', p50: '< 800', p90: '–', source: 'models.md §4' },
  { who: 'Target budget in models.md §4 (incl. endpoint)', p50: '650–850', p90: '–', source: 'models.md §4' },
];

function latestResults(pattern = /-h200\.json$/): string {
  const dir = resolve(process.cwd(), 'bench/results');
  const files = readdirSync(dir)
    .filter((f) => pattern.test(f))
    .sort();
  if (!files.length) throw new Error(`no bench/results file matches ${pattern}; pass it on the command line`);
  return resolve(dir, files[files.length - 1]!);
}

export interface BrowserHops {
  file: string;
  p50: number;
  p90: number;
  parts: { hop: string; p50: number; p90: number }[];
}

/** The hops after the TTS stage that only the browser has, from a browser-latency results file. */
export function browserHops(file: string): BrowserHops {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { hops: BenchRow[]; totals: BenchRow[] };
  const get = (measure: string): BenchRow => {
    const r = [...doc.hops, ...doc.totals].find((x) => x.measure.startsWith(measure));
    if (!r || r.p50 === null || r.p90 === null) throw new Error(`${file}: no "${measure}" row`);
    return r;
  };
  const call = get('TTS call → first frame');
  const own = get('TTS worker: own time');
  const parts = [
    { hop: 'TTS worker messaging (call → first frame − worker time)', p50: call.p50! - own.p50!, p90: call.p90! - own.p90! },
    ...[
      'hop offscreen → panel (chunk received)',
      'panel: chunk → player with the stream open',
      'player: queued → first audible',
    ].map((m) => ({ hop: m, p50: get(m).p50!, p90: get(m).p90! })),
  ];
  return {
    file,
    p50: parts.reduce((a, x) => a + Math.max(0, x.p50), 0),
    p90: parts.reduce((a, x) => a + Math.max(0, x.p90), 0),
    parts,
  };
}

interface BenchRow {
  measure: string;
  p50: number | null;
  p90: number | null;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const at = (n: string) => (argv.indexOf(n) >= 0 ? argv[argv.indexOf(n) + 1] : undefined);
  const file = at('--stages') ?? latestResults();
  // What-if runs: `--set engine.tentativeEndpointMs=64` (repeatable) changes a knob before the scenarios run.
  argv.forEach((a, i) => {
    if (a !== '--set') return;
    const [path, value] = (argv[i + 1] ?? '').split('=');
    const r = setTunable(path ?? '', Number(value));
    if (!r.ok) throw new Error(`--set ${argv[i + 1]}: ${r.error}`);
  });
  const doc = JSON.parse(readFileSync(file, 'utf8')) as StagesDoc;
  const hops = browserHops(at('--browser') ?? latestResults(/-browser-latency\.json$/));
  const vad = await loadSilero();
  const speculateModes = [true, false];
  const rows: Record<string, unknown>[] = [];
  const stageProfiles = profiles(doc);
  const drafted = stageProfiles.find((p) => p.asrDrafts);
  const product = at('--product');
  if (product && !drafted) throw new Error('--product extends the stage profile with ASR drafts, which this stages file lacks');
  const extra = product ? productProfiles(drafted!, product.split(','), ASR_SECONDS) : [];
  for (const p of [...stageProfiles, ...extra]) {
    for (const turnModel of p.endOfTurnMs ? [false, true] : [false]) {
      const t50 = await runProfile(vad, p.p50, speculateModes, turnModel ? p.endOfTurnMs!.p50 : null, p.asrDrafts);
      const t90 = await runProfile(vad, p.p90, speculateModes, turnModel ? p.endOfTurnMs!.p90 : null, p.asrDrafts);
      const summarize = (ts: Turn[], spec: boolean) =>
        ts.filter((t) => t.speculate === spec && t.eosToFirstAudioMs !== null).map((t) => t.eosToFirstAudioMs!);
      const endpoint = t50.filter((t) => t.endpointMs !== null).map((t) => t.endpointMs!);
      const floor = (bw: number) => {
        // After the endpoint: ASR + one LLM pass (prefill of the cached turn) + first-clause tokens + one TTS frame,
        // each reading its weights once at bandwidth bw; plus the measured policy wait (endpoint).
        const firstClauseTokens = 8;
        const ms = ((p.bytes.asr + p.bytes.llmPass * (1 + firstClauseTokens) + p.bytes.tts) / bw) * 1000;
        return Math.round(pct(endpoint, 0.5) + ms);
      };
      for (const spec of speculateModes) {
        const asrAfter = t50
          .filter((t) => t.speculate === spec && t.asrAfterEndpointMs !== null)
          .map((t) => t.asrAfterEndpointMs!);
        rows.push({
          profile: p.name,
          what: p.what,
          endpointing: turnModel ? `Smart Turn (${p.endOfTurnMs!.p50} ms)` : 'silence + wording',
          speculate: spec,
          asrAfterEndpointMsP50: pct(asrAfter, 0.5),
          stageP50: p.p50,
          stageP90: p.p90,
          scenarios: t50.filter((t) => t.speculate === spec),
          eosToFirstAudioP50: pct(summarize(t50, spec), 0.5),
          eosToFirstAudioP90: pct(summarize(t90, spec), 0.9),
          asHeardP50: pct(summarize(t50, spec), 0.5) + hops.p50,
          asHeardP90: pct(summarize(t90, spec), 0.9) + hops.p90,
          endpointMsP50: pct(endpoint, 0.5),
          floorH200Ms: floor(4.8e12),
          floor100GBsMs: floor(100e9),
          floor273GBsMs: floor(273e9),
        });
      }
    }
  }
  const result = {
    stagesFile: file,
    stagesDate: doc.meta.date,
    machine: doc.meta.host,
    adapter: (doc.meta.adapter as { description?: string } | null)?.description ?? null,
    tunables: snapshotTunables().engine,
    asrUtteranceSeconds: ASR_SECONDS,
    llmContext: Number(LLM_CONTEXT),
    browserHops: hops,
    rows,
    peers: PEERS,
  };
  const json = JSON.stringify(result, null, 2);
  const md = renderBudget(result.rows as unknown as BudgetRow[], hops);
  const out = at('--out');
  if (out) {
    writeFileSync(out, json);
    writeFileSync(out.replace(/\.json$/, '.md'), md);
  }
  console.log(json);
  console.log(`\n${md}`);
}

interface BudgetRow {
  profile: string;
  endpointing: string;
  speculate: boolean;
  asrAfterEndpointMsP50: number;
  stageP50: StageLatency;
  eosToFirstAudioP50: number;
  eosToFirstAudioP90: number;
  asHeardP50: number;
  asHeardP90: number;
  endpointMsP50: number;
  floorH200Ms: number;
  floor100GBsMs: number;
  floor273GBsMs: number;
}

export function renderBudget(rows: BudgetRow[], hops: BrowserHops): string {
  const L: string[] = [];
  L.push(
    'End of speech → first audio (simulated clock, real VAD + engine policy, measured stage times). p50 = median over the scenarios with p50 stage times; p90 = 90th percentile over the scenarios with p90 stage times. Floor = endpoint wait + every stage reading its weights once at the given bandwidth. **As heard** = first audio + the browser hops below.',
  );
  L.push('');
  L.push(
    '| profile | endpointing | speculate | ASR / LLM first token / LLM ms per token / TTS first audio (p50, ms) | endpoint wait (ms) | ASR after endpoint (ms) | EoS → first audio p50 (ms) | p90 (ms) | **as heard p50 (ms)** | as heard p90 (ms) | floor @ 4.8 TB/s | floor @ 273 GB/s | floor @ 100 GB/s |',
  );
  L.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const s = r.stageP50;
    L.push(
      `| ${r.profile} | ${r.endpointing} | ${r.speculate} | ${s.asrMs}${s.asrDraftedMs ? ` (with a draft ${s.asrDraftedMs})` : ''} / ${s.llmFirstTokenMs} / ${s.llmTokenMs} / ${s.ttsMs} | ${r.endpointMsP50} | ${r.asrAfterEndpointMsP50} | ${r.eosToFirstAudioP50} | ${r.eosToFirstAudioP90} | **${r.asHeardP50}** | ${r.asHeardP90} | ${r.floorH200Ms} | ${r.floor273GBsMs} | ${r.floor100GBsMs} |`,
    );
  }
  L.push('');
  L.push(`Browser hops (from ${hops.file.replace(/^.*\/bench\//, 'bench/')}; CI box, headless Chromium, SwiftShader):`);
  L.push('');
  L.push('| hop | p50 (ms) | p90 (ms) |');
  L.push('|---|---|---|');
  for (const h of hops.parts) L.push(`| ${h.hop} | ${h.p50} | ${h.p90} |`);
  L.push(`| **sum** | **${hops.p50}** | **${hops.p90}** |`);
  L.push('');
  L.push('| peer | p50 (ms) | p90/P95 (ms) | source |');
  L.push('|---|---|---|---|');
  for (const p of PEERS) L.push(`| ${p.who} | ${p.p50} | ${p.p90} | ${p.source} |`);
  return L.join('\n');
}

if (process.argv.some((a) => /pipeline-budget\.ts$/.test(a))) void main().then(() => process.exit(0));
