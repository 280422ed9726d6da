import { env } from '@huggingface/transformers';
import { TEST_HOOKS } from '../../core/build-flags';
import type { ChatMessage } from '../../core/conversation/chat-message';
import { AsrRuntime } from '../asr/asr-runtime';
import { applyToTransformers, initGpuRuntime, type GpuRuntime, type OrtNamespace } from '../gpu/runtime';
import { LlmRuntime } from '../llm/llm-runtime';
import type { OrtLike } from '../ort-like';
import { SmartTurn } from '../turn/smart-turn';
import { TextEmbedder } from '../embed/text-embedder';
import { TURN_BUNDLE } from '../registry';
import { pinnedBytes } from '../pinned-hub';
import { ModelWorkerRequestSchema, type ModelPart, type ModelWorkerEvent } from './model-protocol';
import { createVisionWorkerHandler } from '../vision/vision-worker-handler';
import type { VisionWorkerReply } from '../vision/vision-protocol';
import { applyOverrides, llmTunables, snapshotTunables } from '../../core/tunables';

export interface ModelHostDeps {
  ort: OrtNamespace;
  gpu: unknown;
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
  post: (event: ModelWorkerEvent, transfer?: Transferable[]) => void;
}

/**
 * The worker's logic: one GPU runtime, ASR, end-of-turn and LLM once their weights are cached (the VAD is not here: it
 * runs in script where the microphone frames arrive, models/vad/silero-js.ts). On a device loss the models are re-created on WASM from the same cached files.
 */
export class ModelHost {
  private runtime: GpuRuntime | null = null;
  private asr: AsrRuntime | null = null;
  private llm: LlmRuntime | null = null;
  private turn: { model: SmartTurn; device: 'webgpu' | 'wasm' } | null = null;
  private embedder: Promise<TextEmbedder> | null = null;
  private lastLoad: { remoteHost: string; asrFamily: 'moonshine' | 'whisper'; parts: ModelPart[] } | null = null;
  private readonly jobs = new Map<string, AbortController>();

  constructor(private readonly deps: ModelHostDeps) {}

  async handle(raw: unknown): Promise<void> {
    const parsed = ModelWorkerRequestSchema.safeParse(raw);
    if (!parsed.success) {
      this.deps.post({ type: 'error', code: 'bad-message', message: parsed.error.issues[0]?.message ?? 'bad message' });
      return;
    }
    const msg = parsed.data;
    switch (msg.type) {
      case 'init':
        return this.init(msg.requestId, msg.wasmPaths, msg.forceWasm);
      case 'load':
        return this.load(msg.requestId, msg.remoteHost, msg.asrFamily, msg.parts, msg.device);
      case 'asr':
        return this.transcribe(msg.requestId, msg.pcm, msg.language, msg.draft);
      case 'end-of-turn':
        return this.endOfTurn(msg.requestId, msg.pcm);
      case 'llm':
        return this.generate(msg.requestId, msg.messages, msg.tools, msg.maxNewTokens);
      case 'embed':
        return this.embed(msg.requestId, msg.remoteHost, msg.texts);
      case 'cancel':
        this.jobs.get(msg.requestId)?.abort();
        return;
      case 'vision-port':
        return this.hostVision(msg.port);
      case 'gpu-stats': {
        const b = this.runtime?.buffers() ?? { count: 0, bytes: 0 };
        this.deps.post({
          type: 'gpu-stats',
          requestId: msg.requestId,
          backend: this.runtime?.backend ?? 'wasm',
          buffers: b.count,
          bytes: b.bytes,
        });
        return;
      }
      case 'lose-device':
        // Fault injection exists in test builds only (docs/security.md, "Test hooks and the release build").
        if (TEST_HOOKS) this.runtime?.loseDevice();
        return;
      case 'hold':
        if (TEST_HOOKS) holdThread(msg.ms);
        return;
      case 'tunables': {
        // Already validated by the background; a refusal here means this worker's registry differs (a stale build).
        const refused = applyOverrides(msg.overrides);
        if (refused.length) this.fail(undefined, 'bad-message', new Error(`tunables refused: ${refused.join('; ')}`));
        return;
      }
      case 'tunables-snapshot':
        this.deps.post({ type: 'tunables-snapshot', requestId: msg.requestId, values: snapshotTunables() });
        return;
    }
  }

  /** A job's failure; one that fails as the GPU device goes is reported as the loss (docs/architecture.md). */
  private async failJob(id: string, code: Extract<ModelWorkerEvent, { type: 'error' }>['code'], err: unknown): Promise<void> {
    // A job aborted by the loss's own recovery needs no wait: the loss is known by then.
    const aborted = this.jobs.get(id)?.signal.aborted ?? false;
    const lost = (await this.runtime?.lostWithin(aborted ? 0 : llmTunables.deviceLossWaitMs)) ?? false;
    this.fail(id, lost ? 'device-lost' : code, err);
  }

  private fail(requestId: string | undefined, code: Extract<ModelWorkerEvent, { type: 'error' }>['code'], err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.deps.post(requestId ? { type: 'error', requestId, code, message } : { type: 'error', code, message });
  }

  private async init(requestId: string, wasmPaths: string, forceWasm = false): Promise<void> {
    try {
      this.runtime = await initGpuRuntime({
        ort: this.deps.ort,
        gpu: forceWasm ? null : (this.deps.gpu as never),
        wasmPaths,
        crossOriginIsolated: this.deps.crossOriginIsolated,
        hardwareConcurrency: this.deps.hardwareConcurrency,
      });
      applyToTransformers(env as never, this.runtime);
      this.runtime.onDeviceLost(
        (info) => void this.recoverOnWasm(String((info as { message?: unknown }).message ?? 'device lost')),
      );
      this.deps.post({
        type: 'ready',
        requestId,
        backend: this.runtime.backend,
        fallbackReason: this.runtime.fallbackReason,
        numThreads: this.runtime.numThreads,
      });
    } catch (err) {
      this.fail(requestId, 'not-ready', err);
    }
  }

  /** `requestId` is absent when the worker reloads on its own (after a GPU loss). */
  private async load(
    requestId: string | undefined,
    remoteHost: string,
    asrFamily: 'moonshine' | 'whisper',
    parts: ModelPart[],
    forced?: 'webgpu' | 'wasm',
  ): Promise<void> {
    if (!this.runtime) return this.fail(requestId, 'not-ready', new Error('model worker not initialised'));
    this.lastLoad = { remoteHost, asrFamily, parts };
    env.allowLocalModels = false;
    env.remoteHost = remoteHost.endsWith('/') ? remoteHost : `${remoteHost}/`;
    env.useBrowserCache = true;
    const device = forced ?? this.runtime.backend;
    const progress = (part: ModelPart) => (e: unknown) => {
      const p = e as { status?: string; file?: string; loaded?: number; total?: number };
      if (p.status === 'progress' && p.file)
        this.deps.post({ type: 'load-progress', part, file: p.file, loaded: p.loaded ?? 0, total: p.total ?? 0 });
    };
    try {
      if (parts.includes('asr')) {
        await this.asr?.dispose();
        this.asr = await AsrRuntime.load({ family: asrFamily, device, onProgress: progress('asr') });
      }
      if (parts.includes('llm')) {
        await this.llm?.dispose();
        // The worker's one ORT instance (transformers.js runs on it too) opens the static-KV session.
        this.llm = await LlmRuntime.load({ device, onProgress: progress('llm'), warmUp: true, ort: this.deps.ort as never });
      }
      // The end-of-turn model runs where the others do: on WebGPU it answers in ~15 ms where WASM takes 150–560 ms
      // (docs/benchmarks.md), and it is asked at the start of a pause, before speculative ASR queues GPU work.
      if (parts.includes('turn') && this.turn?.device !== device) {
        const file = TURN_BUNDLE.files.find((f) => f.role === 'model')!;
        const bytes = await pinnedBytes(file.repo.id, file.repo.revision, file.path);
        await this.turn?.model.release();
        const executionProviders = device === 'webgpu' ? ['webgpu', 'wasm'] : ['wasm'];
        this.turn = { model: await SmartTurn.create(this.deps.ort as unknown as OrtLike, bytes, { executionProviders }), device };
      }
      const llmDecode = parts.includes('llm') && this.llm ? { llmDecode: this.llm.decodeStatus } : {};
      this.deps.post({ type: 'loaded', ...(requestId ? { requestId } : {}), parts, device, ...llmDecode });
    } catch (err) {
      this.fail(requestId, 'load-failed', err);
    }
  }

  /** Serves the vision protocol on `port` with this worker's runtime (the detector yields to speech by schedule). */
  private hostVision(port: MessagePort): void {
    const handle = createVisionWorkerHandler({
      now: () => performance.now(),
      post: (reply: VisionWorkerReply) => port.postMessage(reply),
      prepare: async (request) => {
        if (!this.runtime) throw new Error('model worker not initialised');
        env.allowLocalModels = false;
        if (request.remoteHost) env.remoteHost = request.remoteHost;
        env.useBrowserCache = true;
        return request.forceWasm ? 'wasm' : this.runtime.backend;
      },
    });
    port.onmessage = (e: MessageEvent) => void handle(e.data);
  }

  private async recoverOnWasm(reason: string): Promise<void> {
    this.deps.post({ type: 'backend', backend: 'wasm', reason });
    this.embedder = null;
    for (const job of this.jobs.values()) job.abort();
    if (this.lastLoad) await this.load(undefined, this.lastLoad.remoteHost, this.lastLoad.asrFamily, this.lastLoad.parts, 'wasm');
  }

  /** Loaded on first use on this worker's backend; a failed load is forgotten so a later request retries. */
  private async embed(id: string, remoteHost: string, texts: string[]): Promise<void> {
    if (!this.runtime) return this.fail(id, 'not-ready', new Error('model worker not initialised'));
    try {
      if (!this.embedder) {
        env.allowLocalModels = false;
        env.remoteHost = remoteHost.endsWith('/') ? remoteHost : `${remoteHost}/`;
        env.useBrowserCache = true;
        const loading = TextEmbedder.load({ device: this.runtime.backend });
        this.embedder = loading;
        loading.catch(() => this.embedder === loading && (this.embedder = null));
      }
      const embedder = await this.embedder;
      // On WASM a run holds this worker's thread, and VAD frames wait behind it: one chunk per run (47–354 ms for a
      // 180-token chunk, docs/benchmarks.md § Page retrieval) with the message queue served in between. On WebGPU a
      // whole batch takes a few milliseconds.
      const step = this.runtime.backend === 'webgpu' ? texts.length : 1;
      const rows: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += step) {
        if (i > 0) await new Promise((r) => setTimeout(r, 0));
        rows.push(...(await embedder.embed(texts.slice(i, i + step))));
      }
      const dim = rows[0]?.length ?? 0;
      const vectors = new Float32Array(rows.length * dim);
      rows.forEach((r, i) => vectors.set(r, i * dim));
      this.deps.post({ type: 'embeddings', requestId: id, dim, vectors }, [vectors.buffer]);
    } catch (err) {
      await this.failJob(id, 'embed-failed', err);
    }
  }

  private async endOfTurn(id: string, pcm: Float32Array): Promise<void> {
    if (!this.turn) return this.fail(id, 'not-ready', new Error('the end-of-turn model is not loaded'));
    try {
      this.deps.post({ type: 'end-of-turn', requestId: id, probability: await this.turn.model.completeProbability(pcm) });
    } catch (err) {
      await this.failJob(id, 'turn-failed', err);
    }
  }

  private async transcribe(id: string, pcm: Float32Array, language?: string, draft?: number[]): Promise<void> {
    if (!this.asr) return this.fail(id, 'not-ready', new Error('speech recognition is not loaded'));
    const controller = new AbortController();
    this.jobs.set(id, controller);
    try {
      const out = await this.asr.transcribe(pcm, {
        signal: controller.signal,
        ...(language ? { language } : {}),
        ...(draft ? { draft } : {}),
      });
      const { text, confidence, ids, draftAccepted } = out;
      this.deps.post({ type: 'asr-result', requestId: id, text, confidence, ids, draftAccepted });
    } catch (err) {
      await this.failJob(id, 'asr-failed', err);
    } finally {
      this.jobs.delete(id);
    }
  }

  private async generate(
    id: string,
    messages: ChatMessage[],
    tools?: Record<string, unknown>[],
    maxNewTokens?: number,
  ): Promise<void> {
    if (!this.llm) return this.fail(id, 'not-ready', new Error('the language model is not loaded'));
    const controller = new AbortController();
    this.jobs.set(id, controller);
    const llm = this.llm;
    const decodeBefore = llm.decodeStatus.decode;
    try {
      const { text, stats } = await llm.generate(messages, {
        signal: controller.signal,
        onDelta: (piece) => this.deps.post({ type: 'llm-delta', requestId: id, text: piece }),
        ...(tools ? { tools } : {}),
        ...(maxNewTokens ? { maxNewTokens } : {}),
      });
      this.deps.post({
        type: 'llm-done',
        requestId: id,
        text,
        promptTokens: stats.promptTokens,
        cachedTokens: stats.cachedTokens,
        newTokens: stats.newTokens,
        aborted: stats.aborted,
      });
    } catch (err) {
      await this.failJob(id, 'llm-failed', err);
    } finally {
      this.jobs.delete(id);
      // The status shows the path the next turn takes, not the one loaded (docs/llm-static-kv.md).
      if (llm.decodeStatus.decode !== decodeBefore) this.deps.post({ type: 'llm-decode', status: llm.decodeStatus });
    }
  }
}

/** Busy-waits: what a long synchronous WASM run does to this worker's thread (test builds' `hold` fault). */
function holdThread(ms: number): void {
  const until = performance.now() + ms;
  let spins = 0;
  while (performance.now() < until) spins += 1;
  void spins;
}
