/**
 * What each mode runs. `smoke`: tiny graphs on WASM, for CI (validity only, well under a minute on 2 cores).
 * `full`: real-size graphs; the `gpu` job list is what produced bench/results/*-h200.json.
 */
import type { CapturePlan } from './capture-bench';
import type { DetectorPlan } from './detector-bench';
import { SMART_TURN_FIXTURE, SMART_TURN_FULL } from './smart-turn-graph';
import type { TurnPlan } from './turn-bench';
import { DFINE_M, DFINE_TINY } from './detector-graph';
import { LFM2_1_2B, LFM2_TINY } from './llm-graph';
import { MOONSHINE_BASE, MOONSHINE_TINY } from './moonshine-graphs';
import { POCKET_FULL, POCKET_TINY } from './pocket-graphs';
import type { AsrPlan, Ep, LlmPlan, TtsPlan } from './stage-bench';
import type { WhisperPlan } from './whisper-bench';
import { WHISPER_BASE, WHISPER_TINY } from './whisper-graphs';

interface JobBase {
  id: string;
  ep: Ep;
  threads: number;
  /** Kill the job's process after this many seconds (spawned runs). */
  timeoutS?: number;
}

export type Job =
  | (JobBase & { stage: 'overhead'; reps: number })
  | (JobBase & { stage: 'llm'; plan: LlmPlan })
  | (JobBase & { stage: 'tts'; plan: TtsPlan })
  | (JobBase & { stage: 'asr'; plan: AsrPlan })
  | (JobBase & { stage: 'whisper'; plan: WhisperPlan })
  | (JobBase & { stage: 'detector'; plan: DetectorPlan })
  | (JobBase & { stage: 'capture'; plan: CapturePlan })
  | (JobBase & { stage: 'turn'; plan: TurnPlan });

const llmFull = (dtype: LlmPlan['dtype'], cpuKvCompare: boolean): LlmPlan => ({
  shape: LFM2_1_2B,
  dtype,
  prompts: [100, 500, 2000],
  newTokens: 50,
  decodeContexts: [100, 500, 2000],
  decodeTokens: 32,
  reps: 5,
  cpuKvCompare,
});
const ttsFull = (dtype: TtsPlan['dtype'], gpuStates: boolean, utterances = 3): TtsPlan => ({
  shape: POCKET_FULL,
  dtype,
  voicePrefix: 126,
  textTokens: 20,
  frames: 25,
  utterances,
  gpuStates,
});
const asrFull = (encoderAct: AsrPlan['encoderAct']): AsrPlan => ({
  shape: MOONSHINE_BASE,
  encoderAct,
  decoder: 'q4',
  seconds: [1, 2, 5, 10],
  tokensPerSecond: 4,
  reps: 5,
  draftTails: [2, 3],
});
/** Whisper base as the app requests it (encoder fp32, merged decoder q4), the same lengths as Moonshine. */
const whisperFull: WhisperPlan = {
  shape: WHISPER_BASE,
  model: 'whisper-base',
  encoderAct: 'float32',
  decoder: 'q4',
  seconds: [1, 2, 5, 10],
  tokensPerSecond: 4,
  reps: 3,
};
const detectorFull = (dtype: DetectorPlan['dtype'], frames = 30): DetectorPlan => ({ shape: DFINE_M, dtype, frames, warmup: 3 });
/** Decode at 500 tokens of context in a 1024-position static KV buffer (≈ 25 MB for the 6 attention layers). */
const captureFull = (dtype: CapturePlan['dtype']): CapturePlan => ({
  shape: LFM2_1_2B,
  dtype,
  capacity: 1024,
  context: 500,
  decodeTokens: 32,
});

/** The GPU-machine job list, in run order (one process each). */
export function gpuJobs(): Job[] {
  return [
    { id: 'webgpu-overhead', stage: 'overhead', ep: 'webgpu', threads: 1, reps: 200 },
    { id: 'webgpu-llm-q4', stage: 'llm', ep: 'webgpu', threads: 4, timeoutS: 170, plan: llmFull('q4', true) },
    { id: 'webgpu-llm-q4f16', stage: 'llm', ep: 'webgpu', threads: 4, timeoutS: 150, plan: llmFull('q4f16', false) },
    { id: 'webgpu-tts-fp32-cpu-states', stage: 'tts', ep: 'webgpu', threads: 1, plan: ttsFull('fp32', false) },
    { id: 'webgpu-tts-fp32-gpu-states', stage: 'tts', ep: 'webgpu', threads: 1, plan: ttsFull('fp32', true) },
    { id: 'webgpu-tts-fp16-gpu-states', stage: 'tts', ep: 'webgpu', threads: 1, plan: ttsFull('fp16', true) },
    { id: 'webgpu-asr-fp32', stage: 'asr', ep: 'webgpu', threads: 4, plan: asrFull('float32') },
    { id: 'webgpu-asr-fp16', stage: 'asr', ep: 'webgpu', threads: 4, plan: asrFull('float16') },
    { id: 'wasm-overhead', stage: 'overhead', ep: 'wasm', threads: 1, reps: 200 },
    { id: 'wasm-tts-int8-1t', stage: 'tts', ep: 'wasm', threads: 1, plan: ttsFull('int8', false, 2) },
    { id: 'wasm-tts-fp32-1t', stage: 'tts', ep: 'wasm', threads: 1, plan: ttsFull('fp32', false, 2) },
    { id: 'wasm-tts-int8-4t', stage: 'tts', ep: 'wasm', threads: 4, plan: ttsFull('int8', false, 2) },
    { id: 'wasm-tts-int8-2t', stage: 'tts', ep: 'wasm', threads: 2, plan: ttsFull('int8', false, 2) },
    { id: 'wasm-asr-fp32-4t', stage: 'asr', ep: 'wasm', threads: 4, plan: { ...asrFull('float32'), seconds: [1, 5], reps: 2 } },
    {
      id: 'wasm-llm-q4-8t',
      stage: 'llm',
      ep: 'wasm',
      threads: 8,
      timeoutS: 150,
      plan: {
        shape: LFM2_1_2B,
        dtype: 'q4',
        prompts: [100],
        newTokens: 50,
        decodeContexts: [100],
        decodeTokens: 8,
        reps: 2,
        cpuKvCompare: false,
      },
    },
    // Second processes of the two headline jobs, for the process-to-process spread (gpu-bench.md §5).
    { id: 'webgpu-llm-q4-run2', stage: 'llm', ep: 'webgpu', threads: 4, timeoutS: 150, plan: llmFull('q4', false) },
    { id: 'webgpu-tts-fp32-gpu-states-run2', stage: 'tts', ep: 'webgpu', threads: 1, plan: ttsFull('fp32', true) },
    { id: 'webgpu-llm-q4f16-run2', stage: 'llm', ep: 'webgpu', threads: 4, timeoutS: 150, plan: llmFull('q4f16', false) },
    { id: 'webgpu-asr-fp32-run2', stage: 'asr', ep: 'webgpu', threads: 4, plan: asrFull('float32') },
    { id: 'wasm-tts-int8-1t-run2', stage: 'tts', ep: 'wasm', threads: 1, plan: ttsFull('int8', false, 2) },
    { id: 'webgpu-overhead-run2', stage: 'overhead', ep: 'webgpu', threads: 1, reps: 200 },
    // Added after the 2026-11-29 run (detector, Whisper, graph capture); `--only 'x-*'` runs just these.
    { id: 'x-webgpu-detector-fp32', stage: 'detector', ep: 'webgpu', threads: 4, plan: detectorFull('fp32') },
    { id: 'x-webgpu-detector-fp16', stage: 'detector', ep: 'webgpu', threads: 4, plan: detectorFull('fp16') },
    { id: 'x-wasm-detector-fp32-4t', stage: 'detector', ep: 'wasm', threads: 4, timeoutS: 90, plan: detectorFull('fp32', 3) },
    { id: 'x-webgpu-whisper-base', stage: 'whisper', ep: 'webgpu', threads: 4, plan: whisperFull },
    {
      id: 'x-wasm-whisper-base-4t',
      stage: 'whisper',
      ep: 'wasm',
      threads: 4,
      timeoutS: 100,
      plan: { ...whisperFull, seconds: [2], reps: 1 },
    },
    // The end-of-turn model (Smart Turn v3.2-shaped): the product runs it on WASM; WebGPU for comparison.
    { id: 'x-wasm-turn-1t', stage: 'turn', ep: 'wasm', threads: 1, plan: { shape: SMART_TURN_FULL, calls: 20, warmup: 3 } },
    { id: 'x-wasm-turn-4t', stage: 'turn', ep: 'wasm', threads: 4, plan: { shape: SMART_TURN_FULL, calls: 20, warmup: 3 } },
    { id: 'x-webgpu-turn', stage: 'turn', ep: 'webgpu', threads: 4, plan: { shape: SMART_TURN_FULL, calls: 20, warmup: 3 } },
    { id: 'x-webgpu-llm-q4-capture', stage: 'capture', ep: 'webgpu', threads: 4, timeoutS: 100, plan: captureFull('q4') },
    { id: 'x-webgpu-llm-q4f16-capture', stage: 'capture', ep: 'webgpu', threads: 4, timeoutS: 100, plan: captureFull('q4f16') },
    // Issue 48: both exporters' structures through the product's static-KV rewrite, checked against the plain graph.
    ...(['liquid-builder', 'genai-builder'] as const).flatMap((style) =>
      (['q4', 'q4f16'] as const).map((dtype): Job => ({
        id: `skv-webgpu-llm-${dtype}-capture-${style}`,
        stage: 'capture',
        ep: 'webgpu',
        threads: 4,
        timeoutS: 240,
        plan: { ...captureFull(dtype), exporter: { style, promptTokens: 32, steps: 64 } },
      })),
    ),
  ];
}

/** CI smoke: tiny shapes, WASM, one thread. */
export function smokeJobs(): Job[] {
  const tiny = { voicePrefix: 4, textTokens: 5, frames: 4, utterances: 2 };
  return [
    { id: 'smoke-overhead', stage: 'overhead', ep: 'wasm', threads: 1, reps: 20 },
    {
      id: 'smoke-llm-q4',
      stage: 'llm',
      ep: 'wasm',
      threads: 1,
      plan: {
        shape: LFM2_TINY,
        dtype: 'q4',
        prompts: [8, 24],
        newTokens: 4,
        decodeContexts: [24],
        decodeTokens: 4,
        reps: 2,
        cpuKvCompare: false,
      },
    },
    {
      id: 'smoke-tts-fp32',
      stage: 'tts',
      ep: 'wasm',
      threads: 1,
      plan: { shape: POCKET_TINY, dtype: 'fp32', gpuStates: false, ...tiny },
    },
    {
      id: 'smoke-tts-int8',
      stage: 'tts',
      ep: 'wasm',
      threads: 1,
      plan: { shape: POCKET_TINY, dtype: 'int8', gpuStates: false, ...tiny },
    },
    {
      id: 'smoke-asr',
      stage: 'asr',
      ep: 'wasm',
      threads: 1,
      plan: {
        shape: MOONSHINE_TINY,
        encoderAct: 'float32',
        decoder: 'q4',
        seconds: [0.5, 1],
        tokensPerSecond: 4,
        reps: 2,
        draftTails: [2],
      },
    },
    {
      id: 'smoke-whisper',
      stage: 'whisper',
      ep: 'wasm',
      threads: 1,
      plan: {
        shape: WHISPER_TINY,
        model: 'whisper-base',
        encoderAct: 'float32',
        decoder: 'q4',
        seconds: [0.5, 1],
        tokensPerSecond: 4,
        reps: 1,
      },
    },
    {
      id: 'smoke-detector-fp32',
      stage: 'detector',
      ep: 'wasm',
      threads: 1,
      plan: { shape: DFINE_TINY, dtype: 'fp32', frames: 4, warmup: 1 },
    },
    { id: 'smoke-turn', stage: 'turn', ep: 'wasm', threads: 1, plan: { shape: SMART_TURN_FIXTURE, calls: 3, warmup: 1 } },
    {
      id: 'smoke-capture',
      stage: 'capture',
      ep: 'wasm',
      threads: 1,
      plan: { shape: LFM2_TINY, dtype: 'q4', capacity: 64, context: 16, decodeTokens: 4 },
    },
    ...(['liquid-builder', 'genai-builder'] as const).map((style): Job => ({
      id: `smoke-capture-${style}`,
      stage: 'capture',
      ep: 'wasm',
      threads: 1,
      plan: {
        shape: LFM2_TINY,
        dtype: 'q4',
        capacity: 96,
        context: 16,
        decodeTokens: 4,
        exporter: { style, promptTokens: 7, steps: 64 },
      },
    })),
  ];
}

/** The same tiny jobs on WebGPU (lavapipe or a GPU: a dry run before spending GPU time), plus the fp16 detector. */
export function smokeWebgpuJobs(): Job[] {
  const jobs: Job[] = smokeJobs().map((j): Job => {
    const id = j.id.replace('smoke-', 'smoke-webgpu-');
    if (j.stage === 'tts')
      return {
        ...j,
        id,
        ep: 'webgpu' as const,
        plan: { ...j.plan, dtype: j.plan.dtype === 'int8' ? ('fp16' as const) : j.plan.dtype, gpuStates: true },
      };
    if (j.stage === 'llm') return { ...j, id, ep: 'webgpu' as const, plan: { ...j.plan, cpuKvCompare: true } };
    // Small enough to check both captured and non-captured logits against the WASM EP.
    if (j.stage === 'capture') return { ...j, id, ep: 'webgpu' as const, plan: { ...j.plan, reference: true } };
    return { ...j, id, ep: 'webgpu' as const };
  });
  jobs.push({
    id: 'smoke-webgpu-detector-fp16',
    stage: 'detector',
    ep: 'webgpu',
    threads: 1,
    plan: { shape: DFINE_TINY, dtype: 'fp16', frames: 4, warmup: 1 },
  });
  return jobs;
}
