/**
 * The budget's hardware profiles from a stage-bench results file (bench/stages): per profile, the stage latencies at
 * p50 and p90 (ASR for a 2 s utterance, with and without a draft; the LLM's first token over a cached 500-token
 * context and its ms per token; the TTS's first audio), the bytes each stage streams (for the bandwidth floor) and
 * the end-of-turn question's time. bench/pipeline-budget.ts runs the engine's scenarios with them.
 */
import type { StageLatency } from '../../tests/fixtures/audio/conversation-sim';
import type { Stats } from '../stages/measure';
import type { StagesDoc } from '../stages/report';

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

export const ASR_SECONDS = 2;
export const LLM_CONTEXT = '500';

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
