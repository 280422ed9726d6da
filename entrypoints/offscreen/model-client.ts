import { TEST_HOOKS } from '../../core/build-flags';
import type { ChatMessage } from '../../core/conversation/chat-message';
import type { ModelPart, ModelWorkerEvent, ModelWorkerRequest } from '../../models/workers/model-protocol';
import { WorkerClient, type WorkerLike } from '../../models/workers/worker-client';
import type { LlmDecodeStatus, SpeechModelsStatus } from '../../core/protocol/status';
import { onTunablesApplied, type TunablesSnapshot } from '../../core/tunables';
import { tunablesGreeting, tunablesMessage } from './worker-tunables';
import type { LlmTokenCounts } from './remote-llm';

function createSpeechWorker(): Worker {
  return new Worker(new URL('../../models/workers/model.worker.ts', import.meta.url), { type: 'module' });
}

type LoadParts = ModelPart[];

/** What requests in flight at a GPU loss reject with: the loss already has its own notice, so callers stay quiet. */
export class GpuLostError extends Error {
  constructor() {
    super('The GPU stopped responding; the speech models are restarting on the CPU.');
    this.name = 'GpuLostError';
  }
}

/** Promise/stream face of the model worker for the engine's stages, over the one worker client. */
export class ModelWorkerClient {
  private readonly channel: WorkerClient<ModelWorkerRequest, ModelWorkerEvent>;
  backend: 'webgpu' | 'wasm' | null = null;
  loaded = new Set<ModelPart>();
  /** The LLM's decode path as the worker reported it when loading the LLM (null before). */
  llmDecode: LlmDecodeStatus | null = null;
  onEvent: ((event: ModelWorkerEvent) => void) | null = null;
  /** Why the worker is not on WebGPU (null when it is, or before it started). */
  private fallbackReason: string | null = null;

  /** Called when the worker was replaced after a GPU loss, with a promise that settles once it is ready again. */
  onRestart: ((ready: Promise<void>) => void) | null = null;
  private initArgs: [string] | null = null;
  private lastLoad: { remoteHost: string; asrFamily: 'moonshine' | 'whisper'; parts: LoadParts } | null = null;
  private forceWasm = false;
  private restarting: Promise<void> | null = null;

  /** The client made last in this document (one conversation makes one): the debug request for live tunables asks it. */
  static latest: ModelWorkerClient | null = null;
  /** The last finished generation's token counts (test builds' `debug/llm-log` reports them per turn). */
  lastLlmTokens: LlmTokenCounts | null = null;

  /** True from a GPU loss until the worker is ready again on the CPU. */
  get recovering(): boolean {
    return this.restarting !== null;
  }

  constructor(createWorker: () => WorkerLike = createSpeechWorker) {
    this.channel = new WorkerClient(createWorker, {
      name: 'model worker',
      errorOf: (e) => (e.type !== 'error' ? null : e.code === 'device-lost' ? new GpuLostError() : new Error(e.message)),
      // A new worker (also after a GPU loss) starts from this document's tunables; changes follow as they come.
      greeting: tunablesGreeting,
    });
    this.channel.onEvent = (event) => this.observe(event);
    onTunablesApplied(() => this.channel.post(tunablesMessage()));
    ModelWorkerClient.latest = this;
  }

  /** For the offscreen status: the runtime (starting until the worker is ready), why not WebGPU, the models held. */
  status(): SpeechModelsStatus {
    return {
      runtime: this.backend ?? 'starting',
      ...(this.backend === 'wasm' && this.fallbackReason ? { reason: this.fallbackReason.slice(0, 200) } : {}),
      loaded: [...this.loaded],
    };
  }

  /** The worker's live tunables (what its code reads now). */
  async liveTunables(): Promise<TunablesSnapshot> {
    return (await this.channel.request({ type: 'tunables-snapshot' }, ['tunables-snapshot']).reply).values;
  }

  async init(wasmPaths: string): Promise<ModelWorkerEvent & { type: 'ready' }> {
    this.initArgs = [wasmPaths];
    const { reply } = this.channel.request({ type: 'init', wasmPaths, ...(this.forceWasm ? { forceWasm: true } : {}) }, [
      'ready',
    ]);
    return reply;
  }

  /**
   * After a GPU device loss the worker's onnxruntime instance still holds the dead WebGPU backend (a later session on
   * it failed, e.g. the vision detector), so the worker is replaced by a fresh one without WebGPU and the models are
   * reloaded there. Requests made meanwhile wait for it.
   */
  private restartOnWasm(): void {
    if (this.restarting) return;
    this.forceWasm = true;
    this.channel.replace(new GpuLostError());
    this.loaded.clear();
    const ready = (async () => {
      if (this.initArgs) await this.init(...this.initArgs);
      if (this.lastLoad) await this.load(this.lastLoad.remoteHost, this.lastLoad.asrFamily, this.lastLoad.parts, 'wasm');
    })();
    this.restarting = ready.finally(() => {
      this.restarting = null;
    });
    this.onRestart?.(this.restarting);
  }

  async load(remoteHost: string, asrFamily: 'moonshine' | 'whisper', parts: LoadParts, device?: 'webgpu' | 'wasm') {
    this.lastLoad = { remoteHost, asrFamily, parts };
    if (this.forceWasm) device = 'wasm';
    const { reply } = this.channel.request({ type: 'load', remoteHost, asrFamily, parts, ...(device ? { device } : {}) }, [
      'loaded',
    ]);
    return (await reply).device;
  }

  /** Live GPU buffers of the worker's device (leak checks in long sessions). */
  async gpuStats(): Promise<{ backend: 'webgpu' | 'wasm'; buffers: number; bytes: number }> {
    const { backend, buffers, bytes } = await this.channel.request({ type: 'gpu-stats' }, ['gpu-stats']).reply;
    return { backend, buffers, bytes };
  }

  /** Fault injection (test builds only): the worker loses its GPU device and must carry on on WASM. */
  loseDevice(): void {
    if (TEST_HOOKS) this.channel.post({ type: 'lose-device' });
  }

  /** Fault injection (test builds only): the worker's thread is busy for `ms`, as under a long synchronous WASM run. */
  holdThread(ms: number): void {
    if (TEST_HOOKS) this.channel.post({ type: 'hold', ms });
  }

  /** A port speaking the vision detector protocol, served by this worker (one ORT instance, one GPU device). */
  visionPort(): MessagePort {
    const channel = new MessageChannel();
    this.channel.post({ type: 'vision-port', port: channel.port2 }, [channel.port2]);
    return channel.port1;
  }

  async transcribe(
    pcm: Float32Array,
    signal: AbortSignal,
    language?: string,
    draft?: readonly number[],
  ): Promise<{ text: string; confidence: number | null; ids: number[]; draftAccepted: number }> {
    await this.restarting;
    const copy = new Float32Array(pcm);
    const { requestId, reply } = this.channel.request(
      { type: 'asr', pcm: copy, ...(language ? { language } : {}), ...(draft?.length ? { draft: [...draft] } : {}) },
      ['asr-result'],
      { transfer: [copy.buffer] },
    );
    const onAbort = () => this.channel.post({ type: 'cancel', requestId });
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const { text, confidence, ids, draftAccepted } = await reply;
      return { text, confidence, ids, draftAccepted };
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** P(the user has finished their turn), from the end-of-turn model; its audio moves to the worker. */
  async endOfTurn(pcm: Float32Array, signal: AbortSignal): Promise<number> {
    await this.restarting;
    const copy = new Float32Array(pcm);
    const { requestId, reply } = this.channel.request({ type: 'end-of-turn', pcm: copy }, ['end-of-turn'], {
      transfer: [copy.buffer],
    });
    // The model cannot stop mid-run: on abort the caller stops waiting and the late answer is dropped.
    return new Promise<number>((resolve, reject) => {
      const onAbort = () => {
        this.channel.forget(requestId);
        reject(signal.reason ?? new DOMException('aborted', 'AbortError'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      reply
        .then(
          (e) => resolve(e.probability),
          (e: unknown) => reject(e instanceof Error ? e : new Error(String(e))),
        )
        .finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /** Unit-length sentence embeddings of `texts` (page retrieval); loads the embedding model on first use. */
  async embed(remoteHost: string, texts: string[]): Promise<Float32Array[]> {
    await this.restarting;
    const { dim, vectors } = await this.channel.request({ type: 'embed', remoteHost, texts }, ['embeddings']).reply;
    return texts.map((_, i) => vectors.subarray(i * dim, (i + 1) * dim));
  }

  /** Streams the LLM's text deltas (tool-call markers included) until the model stops or `signal` aborts. */
  async *generate(messages: ChatMessage[], signal: AbortSignal, tools?: Record<string, unknown>[]): AsyncGenerator<string> {
    // A log entry whose answer never reached the model (a rewrite not asked on WASM) must not take the last one's counts.
    this.lastLlmTokens = null;
    await this.restarting;
    const queue: string[] = [];
    let wake: (() => void) | null = null;
    let finished = false;
    let failure: Error | null = null;
    const { requestId, reply } = this.channel.request({ type: 'llm', messages, ...(tools ? { tools } : {}) }, ['llm-done'], {
      onEvent: (e) => {
        if (e.type !== 'llm-delta') return;
        queue.push(e.text);
        wake?.();
      },
    });
    reply.then(
      (done) => {
        this.lastLlmTokens = { prompt: done.promptTokens, cached: done.cachedTokens, generated: done.newTokens };
        finished = true;
        wake?.();
      },
      (e: Error) => {
        failure = e;
        finished = true;
        wake?.();
      },
    );
    const onAbort = () => this.channel.post({ type: 'cancel', requestId });
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      while (true) {
        if (queue.length) {
          yield queue.shift()!;
          continue;
        }
        if (finished) break;
        await new Promise<void>((r) => (wake = r));
        wake = null;
      }
      if (failure) throw failure;
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (!finished) {
        this.channel.post({ type: 'cancel', requestId });
        this.channel.forget(requestId);
      }
    }
  }

  /** State kept from the worker's events (its backend, what is loaded), then the listener. */
  private observe(event: ModelWorkerEvent): void {
    switch (event.type) {
      case 'ready':
        this.backend = event.backend;
        // After a GPU loss the new worker starts without WebGPU on purpose: the loss stays the reason.
        this.fallbackReason = this.forceWasm ? (this.fallbackReason ?? event.fallbackReason) : event.fallbackReason;
        break;
      case 'loaded':
        event.parts.forEach((p) => this.loaded.add(p));
        this.backend = event.device;
        if (event.llmDecode) this.llmDecode = event.llmDecode;
        break;
      case 'llm-decode':
        this.llmDecode = event.status;
        break;
      case 'backend':
        this.backend = event.backend;
        this.fallbackReason = event.reason;
        this.restartOnWasm();
        break;
      default:
        break;
    }
    this.onEvent?.(event);
  }
}
