/**
 * A loaded Pocket TTS bundle: bundle.json, tokenizer, preset voices, optional bos_before_voice, and one ORT session
 * per graph. WASM runs the int8 graphs when present; WebGPU is only ever given the non-int8 graphs of
 * `WEBGPU_GRAPHS` (int8 MatMulInteger has no WebGPU kernels and gives NaN, pocket-tts.md §6).
 */
import { parseBundleJson, type PocketBundle } from '../../../core/tts/bundle-manifest';
import type { TtsBackend } from '../../../core/tts/backend-guard';
import { parseNpyFloat32 } from '../../../core/tts/npy';
import { SentencePieceTokenizer } from '../../../core/tts/sentencepiece';
import type { HostTensor } from '../../../core/tts/tensor-data';
import { parseVoicesBin } from '../../../core/tts/voices-bin';
import { parseVoiceSafetensors } from '../../../core/tts/voice-safetensors';
import { GpuInputs, ortGpuUpload } from './gpu-inputs';
import { openCacheCapacity, trimmedCapacityHolds } from './flow-capacity';
import type { GraphName, OrtLike, OrtSessionLike } from './ort-types';
import type { DecoderPort } from './decoder-protocol';
import { DecoderRemote, DecoderStartError } from './decoder-remote';
import { ttsTunables } from '../../../core/tunables';

/**
 * Bundle files by role, as models/manifest.json names them (docs/tts.md): `bundle_json`, `tokenizer`,
 * `bos_before_voice`, `voices` (PTVB1), `voice.<name>` (one safetensors voice state), and `<graph>.int8` /
 * `<graph>.fp32` for the graphs. Roles, not file names: two language folders hold files of the same name.
 */
export type BundleFiles = Map<string, Uint8Array>;

export interface Voice {
  id: string;
  name: string;
  kind: 'preset' | 'clone';
  tensors: Map<string, HostTensor>;
}

export const REQUIRED_GRAPHS: GraphName[] = ['text_conditioner', 'flow_lm_main', 'flow_lm_flow', 'mimi_decoder'];
/** Graphs that may run on WebGPU after the self-test; the conditioner (a lookup) and the encoder stay on WASM. */
export const WEBGPU_GRAPHS: GraphName[] = ['flow_lm_main', 'flow_lm_flow', 'mimi_decoder'];

export type SessionFactory = (graph: GraphName, backend: TtsBackend, bytes: Uint8Array) => Promise<OrtSessionLike>;

export interface LoadOptions {
  ort: OrtLike;
  files: BundleFiles;
  /** 'webgpu' only after a passing self-test verdict. */
  backend?: TtsBackend;
  /** ORT session options per backend; Node tests use `{ executionProviders: ['cpu'] }` for 'wasm'. */
  sessionOptions?: Partial<Record<TtsBackend, object>>;
  /** Replaces ORT session creation (tests use it to model a broken accelerator with a real NaN graph). */
  sessionFactory?: SessionFactory;
  /** On WebGPU, upload voices and fresh decoder states once instead of per chunk (default true; gpu-inputs.ts). */
  gpuInputs?: boolean;
  /** On WASM, size the flow LM's caches to each chunk when the graph allows it (default true; flow-capacity.ts). */
  chunkSizedCache?: boolean;
  /**
   * On WASM, run `mimi_decoder` in a second ORT instance (a worker `spawn` creates) so it decodes frame n while the
   * flow LM computes frame n+1 (docs/tts.md, "Overlapped decode"). Absent, or if the worker cannot start: the
   * single-instance loop.
   */
  separateDecoder?: { spawn: () => DecoderPort; numThreads?: number };
}

/** Which loop a loaded model runs, and why the single-instance one when the overlapped one was asked for. */
export interface DecodeLoop {
  kind: 'overlapped' | 'single';
  decoderThreads?: number;
  reason?: string;
}

export class PocketLoadError extends Error {
  override name = 'PocketLoadError';
}

const DEFAULT_SESSION_OPTIONS: Record<TtsBackend, object> = {
  wasm: { executionProviders: ['wasm'], graphOptimizationLevel: 'all' },
  webgpu: { executionProviders: ['webgpu'], graphOptimizationLevel: 'all' },
};

function graphFile(files: BundleFiles, graph: GraphName, backend: TtsBackend): string | undefined {
  const roles = backend === 'webgpu' ? [`${graph}.fp32`] : [`${graph}.int8`, `${graph}.fp32`];
  return roles.find((n) => files.has(n));
}

export class PocketModel {
  readonly sessions = new Map<GraphName, { session: OrtSessionLike; backend: TtsBackend; file: string }>();
  readonly voices = new Map<string, Voice>();
  /** Large constant inputs kept on the GPU while the heavy graphs run there (gpu-inputs.ts); null on WASM. */
  gpuInputs: GpuInputs | null = null;
  /** The WASM flow LM takes caches sized to the chunk (checked at load, flow-capacity.ts). */
  chunkSizedCache = false;
  /** Mimi in its own ORT instance (WASM only; decoder-remote.ts), or null for the single-instance loop. */
  separateDecoder: DecoderRemote | null = null;
  decodeLoop: DecodeLoop = { kind: 'single' };

  private constructor(
    readonly ort: OrtLike,
    readonly bundle: PocketBundle,
    readonly tokenizer: SentencePieceTokenizer,
    readonly bosBeforeVoice: Float32Array | null,
    private readonly files: BundleFiles,
    private readonly opts: LoadOptions,
  ) {}

  /** Stable id for verdict caches and stored voices. */
  get bundleId(): string {
    return `${this.bundle.bundle_name}/${this.bundle.language}`;
  }

  static async load(opts: LoadOptions): Promise<PocketModel> {
    const { files } = opts;
    const need = (name: string) => {
      const f = files.get(name);
      if (!f) throw new PocketLoadError(`bundle file missing: ${name}`);
      return f;
    };
    const bundle = parseBundleJson(JSON.parse(new TextDecoder().decode(need('bundle_json'))));
    const tokenizer = SentencePieceTokenizer.fromModelBytes(need('tokenizer'));
    let bos: Float32Array | null = null;
    if (bundle.insert_bos_before_voice && bundle.bos_before_voice_file) {
      const npy = parseNpyFloat32(need('bos_before_voice'));
      if (npy.data.length !== bundle.conditioning_dim)
        throw new PocketLoadError(`bos_before_voice has ${npy.data.length} values`);
      bos = npy.data;
    }
    const model = new PocketModel(opts.ort, bundle, tokenizer, bos, files, opts);
    if (files.has('voices')) {
      for (const v of parseVoicesBin(need('voices')))
        model.voices.set(v.name, { id: v.name, name: v.name, kind: 'preset', tensors: v.tensors });
    }
    for (const [role, bytes] of files) {
      if (!role.startsWith('voice.')) continue;
      const name = role.slice('voice.'.length);
      model.voices.set(name, { id: name, name, kind: 'preset', tensors: parseVoiceSafetensors(bytes) });
    }
    const backend = opts.backend ?? 'wasm';
    // The separate decoder compiles its runtime and graph while this instance opens its own.
    const decoder = opts.separateDecoder && backend === 'wasm' ? model.startSeparateDecoder(opts.separateDecoder) : null;
    try {
      for (const g of REQUIRED_GRAPHS) await model.openGraph(g, WEBGPU_GRAPHS.includes(g) ? backend : 'wasm');
      if (graphFile(files, 'mimi_encoder', 'wasm')) await model.openGraph('mimi_encoder', 'wasm');
    } catch (e) {
      await decoder;
      model.separateDecoder?.close();
      throw e;
    }
    await decoder;
    if (model.backend === 'webgpu' && opts.gpuInputs !== false) {
      const upload = await ortGpuUpload(opts.ort);
      if (upload) model.gpuInputs = new GpuInputs(opts.ort, upload);
    }
    return model;
  }

  private async startSeparateDecoder(how: NonNullable<LoadOptions['separateDecoder']>): Promise<void> {
    try {
      const file = graphFile(this.files, 'mimi_decoder', 'wasm');
      if (!file) throw new PocketLoadError('no file for graph mimi_decoder');
      const graph = this.files.get(file)!;
      this.separateDecoder = await DecoderRemote.start(how.spawn(), {
        graph,
        manifest: this.bundle.mimi_state_manifest,
        latentDim: this.bundle.latent_dim,
        numThreads: how.numThreads,
        timeoutMs: ttsTunables.decoderStartTimeoutMs,
      });
      this.decodeLoop = { kind: 'overlapped', decoderThreads: this.separateDecoder.threads };
    } catch (e) {
      const message = (e as Error).message;
      this.decodeLoop = {
        kind: 'single',
        reason: e instanceof DecoderStartError ? message : `separate Mimi decoder did not start: ${message}`,
      };
    }
  }

  /** The separate decoder failed mid-utterance: later utterances use the single-instance loop. */
  dropSeparateDecoder(reason: string): void {
    this.separateDecoder?.close();
    this.separateDecoder = null;
    this.decodeLoop = { kind: 'single', reason };
  }

  private async openGraph(graph: GraphName, backend: TtsBackend): Promise<void> {
    const file = graphFile(this.files, graph, backend);
    if (!file) throw new PocketLoadError(`no ${backend === 'webgpu' ? 'non-int8 ' : ''}file for graph ${graph}`);
    const declared = this.files.get(file)!;
    const open = (bytes: Uint8Array) =>
      this.opts.sessionFactory
        ? this.opts.sessionFactory(graph, backend, bytes)
        : this.opts.ort.InferenceSession.create(
            bytes,
            this.opts.sessionOptions?.[backend] ?? this.defaultOptions(graph, backend),
          );
    const sized =
      graph === 'flow_lm_main' && backend === 'wasm' && this.opts.chunkSizedCache !== false
        ? openCacheCapacity(declared, this.bundle.flow_lm_state_manifest)
        : null;
    let session = await open(sized ?? declared);
    if (graph === 'flow_lm_main') {
      const dims = { latent: this.bundle.latent_dim, conditioning: this.bundle.conditioning_dim };
      this.chunkSizedCache =
        sized !== null && (await trimmedCapacityHolds(this.ort, session, this.bundle.flow_lm_state_manifest, dims));
      if (sized && !this.chunkSizedCache) {
        await session.release?.();
        session = await open(declared);
      }
    }
    const previous = this.sessions.get(graph);
    this.sessions.set(graph, { session, backend, file });
    await previous?.session.release?.();
  }

  /**
   * On WebGPU the recurrent states stay on the GPU between steps (the flow-LM KV cache alone is ~49 MB a step; a CPU
   * round trip each way would dominate the step). The generator feeds them back and frees the replaced ones.
   */
  private defaultOptions(graph: GraphName, backend: TtsBackend): object {
    if (backend !== 'webgpu') return DEFAULT_SESSION_OPTIONS[backend];
    const manifest =
      graph === 'flow_lm_main'
        ? this.bundle.flow_lm_state_manifest
        : graph === 'mimi_decoder'
          ? this.bundle.mimi_state_manifest
          : [];
    return {
      ...DEFAULT_SESSION_OPTIONS.webgpu,
      preferredOutputLocation: Object.fromEntries(manifest.map((e) => [e.output_name, 'gpu-buffer'])),
    };
  }

  session(graph: GraphName): OrtSessionLike {
    const s = this.sessions.get(graph);
    if (!s) throw new PocketLoadError(`graph ${graph} is not loaded`);
    return s.session;
  }

  get hasEncoder(): boolean {
    return this.sessions.has('mimi_encoder');
  }

  /** The backend of the heavy graphs ('webgpu' if any of them runs there). */
  get backend(): TtsBackend {
    return WEBGPU_GRAPHS.some((g) => this.sessions.get(g)?.backend === 'webgpu') ? 'webgpu' : 'wasm';
  }

  /** Mid-session fallback: reopen every WebGPU graph on WASM (int8 where available). */
  async switchToWasm(): Promise<void> {
    this.gpuInputs?.dispose();
    this.gpuInputs = null;
    for (const g of WEBGPU_GRAPHS) if (this.sessions.get(g)?.backend === 'webgpu') await this.openGraph(g, 'wasm');
  }

  async release(): Promise<void> {
    this.separateDecoder?.close();
    this.separateDecoder = null;
    this.gpuInputs?.dispose();
    this.gpuInputs = null;
    for (const { session } of this.sessions.values()) await session.release?.();
    this.sessions.clear();
  }
}
