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
import { ASR_SECONDS, LLM_CONTEXT, profiles } from './budget/stage-profiles';
import type { StagesDoc } from './stages/report';

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
