/**
 * Budget profiles whose stage times come from the product's own loops (bench/product/, results merged by
 * bench/product/report.ts) instead of the stage graphs: the ASR call (`AsrRuntime`, full and with a draft, 2 s clip),
 * the LLM's first token and time per token (`LlmRuntime`) and the TTS's first audio (`PocketModel` + `synthesize`).
 * The LLM's first token is its whole prompt of 56 tokens prefilled without a cache (the loop resets it each round):
 * an upper bound for a turn whose history is cached, which prefills only the new turn. What no product loop measures
 * (the bytes for the bandwidth floor; the end-of-turn question where the ASR loop has no pause measure) is kept from
 * the stage profile they extend.
 * p90 = the slowest measured round after the first.
 */
import { readFileSync } from 'node:fs';
import type { StageLatency } from '../../tests/fixtures/audio/conversation-sim';
import type { Profile } from './stage-profiles';
import { medianAfterFirst } from '../product/loop-timing';
import { engineTunables } from '../../core/tunables';
import { speculativeAsrQuietMs } from '../../core/engine/speculation';

type Loop = Record<string, unknown> & { bench: string; runtime: string; perRound?: Record<string, number>[] };
interface AsrClip {
  seconds: number;
  full: { ms: number };
  drafted: { ms: number };
  rounds: { full: { ms: number }[]; drafted: { ms: number }[] };
}

interface PauseTimes {
  turnWithAsrMs: number;
  asrWithTurnMs: number;
  /** Absent in results from before the ASR-first timing. */
  asrLeadMs?: number;
  turnAfterAsrMs?: number;
  asrLeadingMs?: number;
  rounds: { turnWithAsrMs: number; asrWithTurnMs: number; turnAfterAsrMs?: number; asrLeadingMs?: number }[];
}

/**
 * Which of the probe's two orders the engine runs with the current tunables: with drafts on, the transcription starts
 * `turnCheckMs − speculativeAsrQuietMs(true)` before the question (core/engine/speculation.ts).
 * The probe's ASR-first timing is used when that lead is the probe's; no lead is "together"; any other lead is refused
 * rather than guessed.
 */
function pauseOrder(pause: PauseTimes): { turn: 'turnWithAsrMs' | 'turnAfterAsrMs'; asr: 'asrWithTurnMs' | 'asrLeadingMs' } {
  const lead = engineTunables.turnCheckMs - speculativeAsrQuietMs(true);
  if (lead <= 0) return { turn: 'turnWithAsrMs', asr: 'asrWithTurnMs' };
  if (pause.asrLeadMs === lead && pause.turnAfterAsrMs !== undefined) return { turn: 'turnAfterAsrMs', asr: 'asrLeadingMs' };
  throw new Error(
    `--product: the engine starts ASR ${lead} ms before the question; the pause probe measured ${pause.asrLeadMs ?? 'no'} lead`,
  );
}

const slowest = (xs: number[]) => Math.round(Math.max(...xs.slice(1)));

/** The last matching result: a later file on the command line replaces an earlier one's measurement. */
function find(loops: Loop[], bench: string, runtime: RegExp): Loop {
  const hit = loops.findLast((l) => l.bench === bench && runtime.test(l.runtime));
  if (!hit) throw new Error(`--product: no ${bench} result on ${runtime.source}`);
  return hit;
}

/** `files`: results JSONs of bench/product/report.ts (`{ results: [...] }`). */
export function productProfiles(base: Profile, files: string[], asrSeconds: number): Profile[] {
  const loops = files.flatMap((f) => (JSON.parse(readFileSync(f, 'utf8')) as { results: Loop[] }).results);
  const asr = find(loops, 'product-asr-loop', /webgpu$/);
  const clip = (asr.perClip as AsrClip[]).find((c) => c.seconds === asrSeconds);
  if (!clip) throw new Error(`--product: no ${asrSeconds} s clip in the ASR loop`);
  const llm = find(loops, 'product-llm-loop', /webgpu$/);
  const tokenP90 = slowest(llm.perRound!.map((r) => r.loopMsPerToken!));
  const firstToken = llm.perRound!.map((r) => r.beforeFirstRunMs! + r.prefillRunMs!);
  const firstTokenP50 = Math.round(medianAfterFirst(firstToken));
  // The pause as the engine runs it (bench/product/pause-probe.ts): the end-of-turn question and the speculative
  // transcription, together or the transcription first (`pauseOrder`), each slowed by the other. A drafted transcription is charged the slower of its
  // two measures (drafts during speech run alone).
  const pause = asr.pause as PauseTimes | undefined;
  const pauseRounds = pause?.rounds.slice(1) ?? [];
  const order = pause && pauseOrder(pause);
  const drafted = (ms: number, together: number | undefined) => Math.round(Math.max(ms, together ?? 0));
  const endOfTurnMs =
    pause && order
      ? { p50: Math.round(pause[order.turn]!), p90: Math.round(Math.max(...pauseRounds.map((r) => r[order.turn]!))) }
      : base.endOfTurnMs;
  const stage = (tts: Loop): { p50: StageLatency; p90: StageLatency } => ({
    p50: {
      ...base.p50,
      asrMs: Math.round(clip.full.ms),
      asrDraftedMs: drafted(clip.drafted.ms, order && pause?.[order.asr]),
      llmFirstTokenMs: firstTokenP50,
      llmTokenMs: Math.round(llm.medianLoopMsPerToken as number),
      ttsMs: Math.round(tts.medianFirstAudioMs as number),
    },
    p90: {
      ...base.p90,
      asrMs: slowest(clip.rounds.full.map((r) => r.ms)),
      asrDraftedMs: drafted(
        slowest(clip.rounds.drafted.map((r) => r.ms)),
        order && Math.max(...pauseRounds.map((r) => r[order.asr]!)),
      ),
      llmFirstTokenMs: slowest(firstToken),
      llmTokenMs: tokenP90,
      ttsMs: slowest(tts.perRound!.map((r) => r.firstAudioMs!)),
    },
  });
  const ttsWasm = find(loops, 'product-tts-loop', /wasm$/);
  const ttsGpu = find(loops, 'product-tts-loop', /webgpu$/);
  return [
    {
      ...base,
      endOfTurnMs,
      ...stage(ttsWasm),
      name: 'product loops, TTS WASM (H200)',
      what: `ASR ${JSON.stringify(asr.sessions)}, LLM WebGPU, Pocket TTS WASM int8 4 threads: the product's own loops; ASR drafts on`,
    },
    {
      ...base,
      endOfTurnMs,
      ...stage(ttsGpu),
      name: 'product loops, TTS WebGPU (H200)',
      what: `as above with Pocket TTS on WebGPU, GPU-resident states${ttsGpu.gpuInputs ? ', voice and fresh Mimi states uploaded once' : ''}`,
    },
  ];
}
