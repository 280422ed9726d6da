/**
 * The models the app loads, read from the pinned weights manifest (models/manifest.json; every fact and its public
 * source: docs/models.md). This module only gives the manifest's bundles names the code can use and derives what the
 * runtimes need from them: the repo and commit transformers.js loads from, the dtype it requests, and the Pocket TTS
 * worker's files by role. No hub path, size or hash is written here.
 *
 * One dtype per model for BOTH backends (WebGPU and WASM): after a WebGPU device loss the runtime re-creates sessions on
 * WASM from the files already cached, with no second download (docs/models.md).
 */
import manifestJson from './manifest.json';
import { manifestBundles, parseWeightsManifest, type WeightsManifest } from '../core/weights/manifest';
import type { BundleFile, ModelBundle } from '../core/weights/types';

export const WEIGHTS_MANIFEST: WeightsManifest = parseWeightsManifest(manifestJson);
export const MODEL_BUNDLES: ModelBundle[] = manifestBundles(WEIGHTS_MANIFEST);

export function bundleById(id: string): ModelBundle {
  const b = MODEL_BUNDLES.find((x) => x.id === id);
  if (!b) throw new Error(`the weights manifest has no bundle ${id}`);
  return b;
}

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

/** The one repo (and pinned commit) a transformers.js bundle is loaded from. */
function singleRepo(bundle: ModelBundle): { repo: string; revision: string } {
  const first = bundle.files[0]!;
  if (
    bundle.files.some((f) => f.repo.id !== first.repo.id || f.repo.revision !== first.repo.revision || f.repo.type !== 'model')
  ) {
    throw new Error(`bundle ${bundle.id} must come from one model repo for transformers.js`);
  }
  return { repo: first.repo.id, revision: first.repo.revision };
}

/** 'encoder_model:fp32,decoder_model_merged:q4' → per-session dtypes; a plain 'q4' → the same for every session. */
function parseDtype(dtype: string): Record<string, string> | string {
  if (!dtype.includes(':')) return dtype;
  return Object.fromEntries(dtype.split(',').map((part) => part.split(':') as [string, string]));
}

export interface LlmModelSpec {
  id: string;
  repo: string;
  revision: string;
  dtype: string;
}

export interface AsrModelSpec {
  id: string;
  repo: string;
  revision: string;
  family: 'moonshine' | 'whisper';
  /** Per-session dtypes, e.g. { encoder_model: 'fp32', decoder_model_merged: 'q4' }. */
  dtype: Record<string, string>;
  /** Languages it transcribes; Moonshine base is English-only. */
  multilingual: boolean;
}

export const LLM_BUNDLE = bundleById('llm-lfm2.5-1.2b-instruct');
export const ASR_BUNDLES: Record<'moonshine' | 'whisper', ModelBundle> = {
  moonshine: bundleById('asr-moonshine-base'),
  whisper: bundleById('asr-whisper-base'),
};
/** Smart Turn v3.2: the end-of-turn model the engine asks after a short pause (docs/models.md § Smart Turn). */
export const TURN_BUNDLE = bundleById('turn-smart-turn-v3.2');
export const TTS_BUNDLE = bundleById('tts-pocket-en');
/** Optional fp32 graphs of the three heavy Pocket TTS graphs, the only ones allowed on WebGPU (docs/tts.md). */
export const TTS_GPU_BUNDLE = bundleById('tts-pocket-en-gpu');

/** Optional sentence-embedding model for page retrieval (docs/models.md § Page embeddings). */
export const EMBED_BUNDLE = bundleById('embed-all-minilm-l6-v2');

/** Default LLM: LFM2.5-1.2B-Instruct (hybrid conv + GQA; tool-call judgement 0.88; ~12 KB KV per token). */
export const LLM_MODEL: LlmModelSpec = { id: LLM_BUNDLE.id, ...singleRepo(LLM_BUNDLE), dtype: LLM_BUNDLE.dtype };

function asrSpec(bundle: ModelBundle, family: 'moonshine' | 'whisper', multilingual: boolean): AsrModelSpec {
  const dtype = parseDtype(bundle.dtype);
  if (typeof dtype === 'string') throw new Error(`ASR bundle ${bundle.id} needs per-session dtypes`);
  return { id: bundle.id, ...singleRepo(bundle), family, dtype, multilingual };
}

export const ASR_MODELS: Record<'moonshine' | 'whisper', AsrModelSpec> = {
  /** English default: Moonshine base (10.07 % Open-ASR WER, compute scales with clip length, no 30 s padding). */
  moonshine: asrSpec(ASR_BUNDLES.moonshine, 'moonshine', false),
  /** Other languages: Whisper base (multilingual, 99 languages; pads every clip to 30 s). */
  whisper: asrSpec(ASR_BUNDLES.whisper, 'whisper', true),
};

/** all-MiniLM-L6-v2, fp32 (`onnx/model.onnx`), on both backends (docs/models.md § Page embeddings). */
export const EMBED_MODEL: { id: string; repo: string; revision: string; dtype: string } = {
  id: EMBED_BUNDLE.id,
  ...singleRepo(EMBED_BUNDLE),
  dtype: EMBED_BUNDLE.dtype,
};

/** The per-session dtype map transformers.js takes for speech seq2seq models. */
export function asrDtypeMap(spec: AsrModelSpec): Record<string, string> {
  return { ...spec.dtype };
}

/** The repo and commit a transformers.js bundle loads from (vision detector, etc.). */
export function transformersSource(bundle: ModelBundle): { repo: string; revision: string } {
  return singleRepo(bundle);
}

/** The Pocket TTS worker's files: role → URL; `withGpuGraphs` adds the fp32 graphs. */
export function ttsWorkerFiles(urlOf: (file: BundleFile) => string, withGpuGraphs = false): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of [...TTS_BUNDLE.files, ...(withGpuGraphs ? TTS_GPU_BUNDLE.files : [])]) out[f.role] = urlOf(f);
  return out;
}

/** Roles of the TTS bundle a worker can do without (the voice encoder: speaking works, cloning does not). */
export const TTS_OPTIONAL_ROLES: string[] = TTS_BUNDLE.files.filter((f) => f.optional).map((f) => f.role);
