import type { SpeechEvent, SpeechRequest } from '../../models/workers/speech-protocol';

type Pending<T> = { resolve: (v: T) => void; reject: (e: Error) => void };

function createSpeechWorker(): Worker {
  return new Worker(new URL('../../models/workers/speech.worker.ts', import.meta.url), { type: 'module' });
}

/** Promise/stream face of the speech worker for the engine's stages. */
export class SpeechClient {
  private seq = 0;
  private jobSeq = 0;
  private readonly vadWaiters = new Map<number, Pending<number>>();
  private readonly asrWaiters = new Map<string, Pending<{ text: string; confidence: number | null }>>();
  private readonly llmJobs = new Map<string, { onDelta: (t: string) => void; done: Pending<string> }>();
  private readyWaiter: Pending<SpeechEvent & { type: 'ready' }> | null = null;
  private loadWaiter: Pending<'webgpu' | 'wasm'> | null = null;
  private readonly statsWaiters: Pending<{ backend: 'webgpu' | 'wasm'; buffers: number; bytes: number }>[] = [];
  backend: 'webgpu' | 'wasm' | null = null;
  loaded = new Set<'asr' | 'llm'>();
  onEvent: ((event: SpeechEvent) => void) | null = null;

  /** Called when the worker was replaced after a GPU loss, with a promise that settles once it is ready again. */
  onRestart: ((ready: Promise<void>) => void) | null = null;
  private initArgs: [string, string] | null = null;
  private lastLoad: { remoteHost: string; asrFamily: 'moonshine' | 'whisper'; parts: ('asr' | 'llm')[] } | null = null;
  private forceWasm = false;
  private restarting: Promise<void> | null = null;
  private worker: Worker;

  constructor(private readonly createWorker: () => Worker = createSpeechWorker) {
    this.worker = this.spawn();
  }

  private spawn(): Worker {
    const worker = this.createWorker();
    worker.onmessage = (e: MessageEvent<SpeechEvent>) => this.receive(e.data);
    worker.onerror = (e) => this.failAll(new Error(`speech worker crashed: ${e.message}`));
    return worker;
  }

  private post(msg: SpeechRequest, transfer: Transferable[] = []): void {
    this.worker.postMessage(msg, transfer);
  }

  init(vadModelUrl: string, wasmPaths: string): Promise<SpeechEvent & { type: 'ready' }> {
    this.initArgs = [vadModelUrl, wasmPaths];
    return new Promise((resolve, reject) => {
      this.readyWaiter = { resolve, reject };
      this.post({ type: 'init', vadModelUrl, wasmPaths, ...(this.forceWasm ? { forceWasm: true } : {}) });
    });
  }

  /**
   * After a GPU device loss the worker's onnxruntime instance still holds the dead WebGPU backend (a later session on
   * it failed, e.g. the vision detector), so the worker is replaced by a fresh one without WebGPU and the models are
   * reloaded there. Requests made meanwhile wait for it (VAD frames count as silence).
   */
  private restartOnWasm(): void {
    if (this.restarting) return;
    this.forceWasm = true;
    const old = this.worker;
    this.worker = this.spawn();
    old.terminate();
    for (const w of this.vadWaiters.values()) w.resolve(0); // frames the old worker never answered: silence
    this.vadWaiters.clear();
    this.failAll(new Error('The GPU stopped responding; the speech models are restarting on the CPU.'));
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

  load(remoteHost: string, asrFamily: 'moonshine' | 'whisper', parts: ('asr' | 'llm')[], device?: 'webgpu' | 'wasm') {
    this.lastLoad = { remoteHost, asrFamily, parts };
    if (this.forceWasm) device = 'wasm';
    return new Promise<'webgpu' | 'wasm'>((resolve, reject) => {
      this.loadWaiter = { resolve, reject };
      this.post({ type: 'load', remoteHost, asrFamily, parts, ...(device ? { device } : {}) });
    });
  }

  /** Live GPU buffers of the worker's device (leak checks in long sessions). */
  gpuStats(): Promise<{ backend: 'webgpu' | 'wasm'; buffers: number; bytes: number }> {
    return new Promise((resolve, reject) => {
      this.statsWaiters.push({ resolve, reject });
      this.post({ type: 'gpu-stats' });
    });
  }

  /** Fault injection: the worker loses its GPU device and must carry on on WASM. */
  loseDevice(): void {
    this.post({ type: 'lose-device' });
  }

  /** A port speaking the vision detector protocol, served by this worker (one ORT instance, one GPU device). */
  visionPort(): MessagePort {
    const channel = new MessageChannel();
    this.post({ type: 'vision-port', port: channel.port2 }, [channel.port2]);
    return channel.port1;
  }

  /** Speech probability of one 512-sample 16 kHz frame; the frame's buffer moves to the worker. */
  vad(frame: Float32Array): Promise<number> {
    if (this.restarting) return Promise.resolve(0);
    const seq = this.seq++;
    return new Promise((resolve, reject) => {
      this.vadWaiters.set(seq, { resolve, reject });
      const copy = new Float32Array(frame);
      this.post({ type: 'vad', seq, frame: copy }, [copy.buffer]);
    });
  }

  async transcribe(
    pcm: Float32Array,
    signal: AbortSignal,
    language?: string,
  ): Promise<{ text: string; confidence: number | null }> {
    await this.restarting;
    const id = `asr-${++this.jobSeq}`;
    return new Promise((resolve, reject) => {
      this.asrWaiters.set(id, { resolve, reject });
      signal.addEventListener('abort', () => this.post({ type: 'cancel', id }), { once: true });
      const copy = new Float32Array(pcm);
      this.post({ type: 'asr', id, pcm: copy, ...(language ? { language } : {}) }, [copy.buffer]);
    });
  }

  /** Streams the LLM's text deltas (tool-call markers included) until the model stops or `signal` aborts. */
  async *generate(
    messages: { role: 'system' | 'user' | 'assistant' | 'tool'; content: string }[],
    signal: AbortSignal,
    tools?: Record<string, unknown>[],
  ): AsyncGenerator<string> {
    await this.restarting;
    const id = `llm-${++this.jobSeq}`;
    const queue: string[] = [];
    let wake: (() => void) | null = null;
    let finished = false;
    let failure: Error | null = null;
    this.llmJobs.set(id, {
      onDelta: (t) => {
        queue.push(t);
        wake?.();
      },
      done: {
        resolve: () => {
          finished = true;
          wake?.();
        },
        reject: (e) => {
          failure = e;
          finished = true;
          wake?.();
        },
      },
    });
    const onAbort = () => this.post({ type: 'cancel', id });
    signal.addEventListener('abort', onAbort, { once: true });
    this.post({ type: 'llm', id, messages, ...(tools ? { tools } : {}) });
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
      if (!finished) this.post({ type: 'cancel', id });
      this.llmJobs.delete(id);
    }
  }

  private receive(event: SpeechEvent): void {
    switch (event.type) {
      case 'ready':
        this.backend = event.backend;
        this.readyWaiter?.resolve(event);
        this.readyWaiter = null;
        break;
      case 'vad':
        this.vadWaiters.get(event.seq)?.resolve(event.prob);
        this.vadWaiters.delete(event.seq);
        break;
      case 'loaded':
        event.parts.forEach((p) => this.loaded.add(p));
        this.backend = event.device;
        this.loadWaiter?.resolve(event.device);
        this.loadWaiter = null;
        break;
      case 'asr-result':
        this.asrWaiters.get(event.id)?.resolve({ text: event.text, confidence: event.confidence });
        this.asrWaiters.delete(event.id);
        break;
      case 'llm-delta':
        this.llmJobs.get(event.id)?.onDelta(event.text);
        break;
      case 'llm-done':
        this.llmJobs.get(event.id)?.done.resolve(event.text);
        break;
      case 'backend':
        this.backend = event.backend;
        this.restartOnWasm();
        break;
      case 'error': {
        const err = new Error(event.message);
        if (event.id) {
          this.asrWaiters.get(event.id)?.reject(err);
          this.asrWaiters.delete(event.id);
          this.llmJobs.get(event.id)?.done.reject(err);
        } else if (event.code === 'load-failed') {
          this.loadWaiter?.reject(err);
          this.loadWaiter = null;
        } else if (event.code === 'not-ready') {
          this.readyWaiter?.reject(err);
          this.readyWaiter = null;
        }
        break;
      }
      case 'load-progress':
        break;
      case 'gpu-stats':
        this.statsWaiters.shift()?.resolve({ backend: event.backend, buffers: event.buffers, bytes: event.bytes });
        break;
    }
    this.onEvent?.(event);
  }

  private failAll(err: Error): void {
    this.readyWaiter?.reject(err);
    this.loadWaiter?.reject(err);
    for (const w of this.vadWaiters.values()) w.reject(err);
    for (const w of this.asrWaiters.values()) w.reject(err);
    for (const j of this.llmJobs.values()) j.done.reject(err);
    this.vadWaiters.clear();
    this.asrWaiters.clear();
  }
}
