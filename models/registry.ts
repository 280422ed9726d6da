/**
 * The models the app loads: hub repo ids, the dtype each runtime requests, and the download bundles for the weights
 * catalog. Why these models and dtypes: docs/models.md.
 *
 * One dtype per model for BOTH backends (WebGPU and WASM): after a WebGPU device loss the runtime re-creates sessions on
 * WASM from the files already cached, with no second download. Known-bad pairs avoided (reference/models.md §2.4):
 * q8 decoders on WebGPU (gibberish), fp16 Whisper decoders, fp16/q4f16 on adapters without shader-f16.
 *
 * SIZES ARE APPROXIMATE (rounded from the hub listings in reference/models.md) and no sha256 is pinned yet: before
 * release, replace them with the exact byte counts and LFS sha256 of a pinned commit (`revision`), because the weights
 * catalog treats a size mismatch as an integrity error.
 */
import type { BundleFile, ModelBundle } from '../core/weights/types';
import { VISION_BUNDLE } from './vision/detector-spec';

export const SIZES_ARE_APPROXIMATE = true;

/** transformers.js dtype → ONNX file suffix (utils/dtypes.js in 4.3.2). */
const DTYPE_SUFFIX: Record<string, string> = {
  fp32: '',
  fp16: '_fp16',
  q8: '_quantized',
  int8: '_int8',
  uint8: '_uint8',
  q4: '_q4',
  q4f16: '_q4f16',
  bnb4: '_bnb4',
};

export function dtypeSuffix(dtype: string): string {
  const suffix = DTYPE_SUFFIX[dtype];
  if (suffix === undefined) throw new Error(`unknown dtype ${dtype}`);
  return suffix;
}

export interface LlmModelSpec {
  id: string;
  repo: string;
  revision: string;
  /** Requested on every backend (see header). */
  dtype: 'q4';
}

export interface AsrModelSpec {
  id: string;
  repo: string;
  revision: string;
  family: 'moonshine' | 'whisper';
  /** Per-session dtypes: encoder fp32 (accuracy; small), merged decoder q4 (the WebGPU-safe quantisation). */
  dtype: { encoder: 'fp32'; decoder: 'q4' };
  /** Languages it transcribes; Moonshine base is English-only. */
  multilingual: boolean;
}

/** Default LLM: LFM2.5-1.2B-Instruct (hybrid conv + GQA; tool-call judgement 0.88; ~12 KB KV per token). */
export const LLM_MODEL: LlmModelSpec = {
  id: 'llm-lfm2.5-1.2b-instruct',
  repo: 'LiquidAI/LFM2.5-1.2B-Instruct-ONNX',
  revision: 'main',
  dtype: 'q4',
};

export const ASR_MODELS: Record<'moonshine' | 'whisper', AsrModelSpec> = {
  /** English default: Moonshine base (10.07 % Open-ASR WER, compute scales with clip length, no 30 s padding). */
  moonshine: {
    id: 'asr-moonshine-base',
    repo: 'onnx-community/moonshine-base-ONNX',
    revision: 'main',
    family: 'moonshine',
    dtype: { encoder: 'fp32', decoder: 'q4' },
    multilingual: false,
  },
  /** Other languages: Whisper base (multilingual, 99 languages; pads every clip to 30 s). */
  whisper: {
    id: 'asr-whisper-base',
    repo: 'onnx-community/whisper-base',
    revision: 'main',
    family: 'whisper',
    dtype: { encoder: 'fp32', decoder: 'q4' },
    multilingual: true,
  },
};

/** The per-session dtype map transformers.js takes for speech seq2seq models. */
export function asrDtypeMap(spec: AsrModelSpec): Record<string, string> {
  return { encoder_model: spec.dtype.encoder, decoder_model_merged: spec.dtype.decoder };
}

const MB = 1_000_000;
const json = (path: string, size: number, optional = false): BundleFile => ({ path, size, ...(optional ? { optional } : {}) });

export const LLM_BUNDLE: ModelBundle = {
  id: LLM_MODEL.id,
  repo: LLM_MODEL.repo,
  revision: LLM_MODEL.revision,
  dtype: LLM_MODEL.dtype,
  task: 'llm',
  backends: ['webgpu', 'wasm'],
  label: 'LFM2.5 1.2B Instruct (4-bit)',
  license: 'LFM Open License v1.0',
  files: [
    json('config.json', 1_800),
    json('generation_config.json', 200, true),
    json('tokenizer_config.json', 6_000),
    json('tokenizer.json', 4_700_000),
    { path: 'onnx/model_q4.onnx', size: 180_000 },
    { path: 'onnx/model_q4.onnx_data', size: 1_200 * MB },
  ],
};

function asrBundle(spec: AsrModelSpec, label: string, license: string, sizes: { tokenizer: number; encoder: number; decoder: number }): ModelBundle {
  return {
    id: spec.id,
    repo: spec.repo,
    revision: spec.revision,
    dtype: `encoder:${spec.dtype.encoder},decoder:${spec.dtype.decoder}`,
    task: 'asr',
    backends: ['webgpu', 'wasm'],
    label,
    license,
    files: [
      json('config.json', 2_000),
      json('generation_config.json', 4_000, true),
      json('preprocessor_config.json', 400),
      json('tokenizer_config.json', 3_000),
      json('tokenizer.json', sizes.tokenizer),
      { path: `onnx/encoder_model${dtypeSuffix(spec.dtype.encoder)}.onnx`, size: sizes.encoder },
      { path: `onnx/decoder_model_merged${dtypeSuffix(spec.dtype.decoder)}.onnx`, size: sizes.decoder },
    ],
  };
}

export const ASR_BUNDLES: Record<'moonshine' | 'whisper', ModelBundle> = {
  moonshine: asrBundle(ASR_MODELS.moonshine, 'Moonshine base (English)', 'MIT', {
    tokenizer: 3_800_000,
    encoder: 81 * MB,
    decoder: 44 * MB,
  }),
  whisper: asrBundle(ASR_MODELS.whisper, 'Whisper base (multilingual)', 'Apache-2.0', {
    tokenizer: 2_500_000,
    encoder: 83 * MB,
    decoder: 130 * MB,
  }),
};

/**
 * Pocket TTS, English, int8 graphs in the v2 bundle layout (pocket-tts.md §3.4). The repo id is where the project
 * expects the bundle to be published/mirrored (unverified on the hub): users can point the mirror URL elsewhere.
 * The encoder (voice cloning) is optional: upstream gates it, and speaking works without it.
 */
export const TTS_BUNDLE: ModelBundle = {
  id: 'tts-pocket-en',
  repo: 'KevinAHM/pocket-tts-onnx',
  revision: 'main',
  dtype: 'int8',
  task: 'tts',
  backends: ['wasm', 'webgpu'],
  label: 'Pocket TTS (English voice)',
  license: 'CC-BY-4.0',
  files: [
    json('bundle.json', 60_000),
    { path: 'tokenizer.model', size: 60_000 },
    { path: 'bos_before_voice.npy', size: 4_224 },
    { path: 'voices.bin', size: 30 * MB },
    { path: 'text_conditioner_int8.onnx', size: 4 * MB },
    { path: 'flow_lm_main_int8.onnx', size: 80 * MB },
    { path: 'flow_lm_flow_int8.onnx', size: 10 * MB },
    { path: 'mimi_decoder_int8.onnx', size: 25 * MB },
    { path: 'mimi_encoder_int8.onnx', size: 20 * MB, optional: true },
  ],
};

/**
 * Optional: the fp32 graphs of the three heavy Pocket TTS graphs, the only ones allowed on WebGPU (int8 graphs give
 * NaN there, pocket-tts.md §6). Same repo and names as upstream's non-quantised export (~303/39/42 MB). With them
 * downloaded, the voice runs on the GPU after this device passes the numeric self-test; WASM int8 stays the fallback.
 */
export const TTS_GPU_BUNDLE: ModelBundle = {
  id: 'tts-pocket-en-gpu',
  repo: TTS_BUNDLE.repo,
  revision: TTS_BUNDLE.revision,
  dtype: 'fp32',
  task: 'tts',
  backends: ['webgpu'],
  label: 'Pocket TTS GPU graphs (optional, faster voice on a GPU)',
  license: 'CC-BY-4.0',
  files: [
    { path: 'flow_lm_main.onnx', size: 303 * MB },
    { path: 'flow_lm_flow.onnx', size: 39 * MB },
    { path: 'mimi_decoder.onnx', size: 42 * MB },
  ],
};

/** TTS file name in the bundle → its URL, for the Pocket worker; `withGpuGraphs` adds the fp32 graphs. */
export function ttsWorkerFiles(urlOf: (path: string) => string, withGpuGraphs = false): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of [...TTS_BUNDLE.files, ...(withGpuGraphs ? TTS_GPU_BUNDLE.files : [])]) out[f.path] = urlOf(f.path);
  return out;
}

export const MODEL_BUNDLES: ModelBundle[] = [LLM_BUNDLE, ASR_BUNDLES.moonshine, TTS_BUNDLE, ASR_BUNDLES.whisper, VISION_BUNDLE, TTS_GPU_BUNDLE];
