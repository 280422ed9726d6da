import type { TtsWorkerEvent, TtsWorkerRequest, VoiceInfo } from '../../models/tts/pocket/protocol';
import type { VoiceConsent } from '../../core/tts/voice-store';
import { ttsTunables } from '../../core/tunables';

type Verdict = { pass: boolean; reason?: string; at: number };

export interface TtsLoadOptions {
  /** 'auto' = WebGPU for the fp32 graphs after a passing self-test verdict (cached in `verdicts`). */
  backend?: 'wasm' | 'auto';
  verdicts?: Record<string, Verdict>;
}

class LoadTimeout extends Error {}

function createTtsWorker(): Worker {
  return new Worker(new URL('../../models/tts/pocket/tts.worker.ts', import.meta.url), { type: 'module' });
}

export interface TtsFrame {
  pcm: Float32Array;
  sampleRate: number;
  frameIndex: number;
  text: string;
}

type Job = { onFrame: (f: TtsFrame) => void; resolve: () => void; reject: (e: Error) => void };
type Waiter<T> = { resolve: (v: T) => void; reject: (e: Error) => void };

/** A worker error with its code (consent-required, cloning-unavailable, bad-audio, bad-voice-file …). */
export class TtsWorkerError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'TtsWorkerError';
  }
}

/** Promise face of the Pocket TTS worker: load a bundle, speak with streamed frames, cancel within one frame. */
export class TtsClient {
  private readonly jobs = new Map<string, Job>();
  private loadWaiter: { resolve: (v: TtsWorkerEvent & { type: 'loaded' }) => void; reject: (e: Error) => void } | null = null;
  private seq = 0;
  private readonly clones = new Map<string, Waiter<{ voice: VoiceInfo; bytes: Uint8Array }>>();
  private readonly addWaiters: Waiter<VoiceInfo[]>[] = [];
  voices: VoiceInfo[] = [];
  /** The loaded bundle's id (clones made with another bundle are refused by the worker). */
  bundleId: string | null = null;
  backend: 'wasm' | 'webgpu' | null = null;
  onEvent: ((e: TtsWorkerEvent) => void) | null = null;
  /** A self-test or mid-session verdict to persist (chrome.storage via the background). */
  onVerdict: ((key: string, verdict: Verdict) => void) | null = null;
  /** The backend changed (a load finished, or the voice left WebGPU mid-session). */
  onBackendChange: (() => void) | null = null;
  /** Why the voice left WebGPU mid-session, if it did. */
  backendReason: string | null = null;

  /** WASM threads of the current worker's sessions (from its `loaded` report). */
  threads: number | null = null;
  /** Set once a threaded load hung: every later worker of this client uses one thread. */
  singleThread = false;
  private worker: Worker;

  constructor(private readonly createWorker: () => Worker = createTtsWorker) {
    this.worker = this.spawn();
  }

  private spawn(): Worker {
    const worker = this.createWorker();
    worker.onmessage = (e: MessageEvent<TtsWorkerEvent>) => this.receive(e.data);
    worker.onerror = (e) => this.failAll(new Error(`voice worker crashed: ${e.message}`));
    return worker;
  }

  private failAll(err: Error): void {
    this.loadWaiter?.reject(err);
    this.loadWaiter = null;
    for (const job of this.jobs.values()) job.reject(err);
    this.jobs.clear();
    for (const w of [...this.clones.values(), ...this.addWaiters.splice(0)]) w.reject(err);
    this.clones.clear();
  }

  private post(msg: TtsWorkerRequest): void {
    this.worker.postMessage(msg);
  }

  get loaded(): boolean {
    return this.backend !== null;
  }

  /**
   * Loads a bundle. If the load hangs (threaded WASM session creation is known to in some environments), the worker
   * is replaced and the load retried once on one thread; that choice then sticks for this client.
   */
  async load(files: Record<string, string>, options: TtsLoadOptions = {}): Promise<TtsWorkerEvent & { type: 'loaded' }> {
    try {
      return await this.loadOnce(files, options, this.singleThread ? 1 : undefined, ttsTunables.loadTimeoutMs);
    } catch (err) {
      if (!(err instanceof LoadTimeout) || this.singleThread) throw err;
      this.worker.terminate();
      this.failAll(new Error('the voice worker was restarted'));
      this.backend = null;
      this.singleThread = true;
      this.worker = this.spawn();
      return this.loadOnce(files, options, 1, ttsTunables.loadTimeoutMs);
    }
  }

  private loadOnce(files: Record<string, string>, options: TtsLoadOptions, numThreads: number | undefined, timeoutMs: number) {
    return new Promise<TtsWorkerEvent & { type: 'loaded' }>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.loadWaiter = null;
        reject(new LoadTimeout(`the voice model did not load within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      const settle =
        <T>(fn: (v: T) => void) =>
        (v: T) => {
          clearTimeout(timer);
          fn(v);
        };
      this.loadWaiter = { resolve: settle(resolve), reject: settle(reject) };
      // WASM runs the int8 graphs; 'auto' may put the fp32 graphs on WebGPU after the self-test (docs/tts.md).
      this.post({
        type: 'load',
        files,
        backend: options.backend ?? 'wasm',
        verdicts: options.verdicts ?? {},
        ...(numThreads ? { numThreads } : {}),
      });
    });
  }

  speak(text: string, voiceId: string, signal: AbortSignal, onFrame: (f: TtsFrame) => void): Promise<void> {
    const requestId = `tts-${++this.seq}`;
    return new Promise<void>((resolve, reject) => {
      if (signal.aborted) return resolve();
      this.jobs.set(requestId, { onFrame, resolve, reject });
      signal.addEventListener(
        'abort',
        () => {
          this.post({ type: 'cancel', requestId });
          this.jobs.delete(requestId);
          resolve();
        },
        { once: true },
      );
      this.post({ type: 'speak', requestId, text, voiceId });
    });
  }

  /** Consent-gated cloning in the worker; resolves with the voice (now speakable) and its serialized bytes to store. */
  clone(
    audio: Float32Array<ArrayBuffer>,
    sampleRate: number,
    name: string,
    consent: VoiceConsent,
  ): Promise<{ voice: VoiceInfo; bytes: Uint8Array }> {
    const requestId = `clone-${++this.seq}`;
    return new Promise((resolve, reject) => {
      this.clones.set(requestId, { resolve, reject });
      this.worker.postMessage({ type: 'clone', requestId, audio, sampleRate, name, consent } satisfies TtsWorkerRequest, [
        audio.buffer,
      ]);
    });
  }

  /** Makes a stored clone speakable again (after every load); resolves with the worker's voice list. */
  addVoice(bytes: Uint8Array<ArrayBuffer>): Promise<VoiceInfo[]> {
    return new Promise((resolve, reject) => {
      this.addWaiters.push({ resolve, reject });
      this.post({ type: 'add-voice', bytes });
    });
  }

  private receive(event: TtsWorkerEvent): void {
    switch (event.type) {
      case 'loaded':
        this.backend = event.backend;
        this.threads = event.threads;
        this.backendReason = null;
        this.onBackendChange?.();
        this.voices = event.voices;
        this.bundleId = event.bundleId;
        this.loadWaiter?.resolve(event);
        this.loadWaiter = null;
        break;
      case 'audio':
        this.jobs.get(event.requestId)?.onFrame({
          pcm: event.pcm,
          sampleRate: event.sampleRate,
          frameIndex: event.frameIndex,
          text: event.text,
        });
        break;
      case 'done':
        this.jobs.get(event.requestId)?.resolve();
        this.jobs.delete(event.requestId);
        break;
      case 'backend':
        this.backend = event.backend;
        this.backendReason = event.reason;
        this.onBackendChange?.();
        break;
      case 'verdict':
        this.onVerdict?.(event.key, event.verdict);
        break;
      case 'voice-cloned':
        this.voices = [...this.voices.filter((v) => v.id !== event.voice.id), event.voice];
        this.clones.get(event.requestId)?.resolve({ voice: event.voice, bytes: event.bytes });
        this.clones.delete(event.requestId);
        break;
      case 'voices':
        this.voices = event.voices;
        this.addWaiters.shift()?.resolve(event.voices);
        break;
      case 'error': {
        const err = new TtsWorkerError(event.code, event.message);
        if (event.requestId) {
          this.jobs.get(event.requestId)?.reject(err);
          this.jobs.delete(event.requestId);
          this.clones.get(event.requestId)?.reject(err);
          this.clones.delete(event.requestId);
        } else if (this.loadWaiter) {
          this.loadWaiter.reject(err);
          this.loadWaiter = null;
        } else {
          this.addWaiters.shift()?.reject(err);
        }
        break;
      }
      default:
        break;
    }
    this.onEvent?.(event);
  }
}
