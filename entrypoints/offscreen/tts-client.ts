import type { TtsWorkerEvent, TtsWorkerRequest, VoiceInfo } from '../../models/tts/pocket/protocol';
import type { VoiceConsent } from '../../core/tts/voice-store';
import { onTunablesApplied, ttsTunables, type TunablesSnapshot } from '../../core/tunables';
import { tunablesGreeting, tunablesMessage } from './worker-tunables';
import type { CachedVerdict } from '../../core/tts/self-test';
import { WorkerClient, type WorkerLike } from '../../models/workers/worker-client';

type Verdict = CachedVerdict;

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
  /**
   * The worker's own timing on the first frame of a request, and the two messages either side of it: the speak
   * request reaching the worker, the frame reaching this document (both on the shared timeOrigin clock).
   */
  timing?: { queuedMs: number; workerMs: number; requestHopMs: number; frameHopMs: number };
}

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

type Loaded = TtsWorkerEvent & { type: 'loaded' };

/** Promise face of the Pocket TTS worker over the one worker client: load, speak with streamed frames, cancel. */
export class TtsClient {
  private readonly channel: WorkerClient<TtsWorkerRequest, TtsWorkerEvent>;
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
  /** Why a load that could use the GPU voice stayed on the CPU (no adapter, or a failed self-test). */
  gpuRefused: string | null = null;
  /** On WASM: how the flow LM's caches are sized (the worker's load-time check, docs/tts.md). */
  flowCache: 'chunk' | 'declared' | null = null;

  /** WASM threads of the current worker's sessions (from its `loaded` report). */
  threads: number | null = null;
  /** Which WASM loop the worker runs (its `loaded` report): Mimi overlapped in its own instance, or one instance. */
  decodeLoop: (TtsWorkerEvent & { type: 'loaded' })['decodeLoop'] | null = null;
  /** Set once a threaded load hung: every later worker of this client uses one thread. */
  singleThread = false;

  constructor(createWorker: () => WorkerLike = createTtsWorker) {
    this.channel = new WorkerClient(createWorker, {
      name: 'voice worker',
      errorOf: (e) => (e.type === 'error' ? new TtsWorkerError(e.code, e.message) : null),
      // A new worker (also the one-thread retry) starts from this document's tunables; changes follow as they come.
      greeting: tunablesGreeting,
    });
    this.channel.onEvent = (event) => this.observe(event);
    onTunablesApplied(() => this.channel.post(tunablesMessage()));
  }

  /** The worker's live tunables (what its code reads now). */
  async liveTunables(): Promise<TunablesSnapshot> {
    return (await this.channel.request({ type: 'tunables-snapshot' }, ['tunables-snapshot']).reply).values;
  }

  get loaded(): boolean {
    return this.backend !== null;
  }

  /**
   * Loads a bundle. If the load hangs (threaded WASM session creation is known to in some environments), the worker
   * is replaced and the load retried once on one thread; that choice then sticks for this client.
   */
  async load(files: Record<string, string>, options: TtsLoadOptions = {}): Promise<Loaded> {
    try {
      return await this.loadOnce(files, options, this.singleThread ? 1 : undefined, ttsTunables.loadTimeoutMs);
    } catch (err) {
      if (!(err instanceof LoadTimeout) || this.singleThread) throw err;
      this.channel.replace(new Error('the voice worker was restarted'));
      this.backend = null;
      this.singleThread = true;
      return this.loadOnce(files, options, 1, ttsTunables.loadTimeoutMs);
    }
  }

  private async loadOnce(
    files: Record<string, string>,
    options: TtsLoadOptions,
    numThreads: number | undefined,
    timeoutMs: number,
  ) {
    // WASM runs the int8 graphs; 'auto' may put the fp32 graphs on WebGPU after the self-test (docs/tts.md).
    const { requestId, reply } = this.channel.request(
      {
        type: 'load',
        files,
        backend: options.backend ?? 'wasm',
        verdicts: options.verdicts ?? {},
        ...(numThreads ? { numThreads } : {}),
      },
      ['loaded'],
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.channel.forget(requestId);
        reject(new LoadTimeout(`the voice model did not load within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([reply, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async speak(text: string, voiceId: string, signal: AbortSignal, onFrame: (f: TtsFrame) => void): Promise<void> {
    if (signal.aborted) return;
    const calledAbs = performance.timeOrigin + performance.now();
    const { requestId, reply } = this.channel.request({ type: 'speak', text, voiceId }, ['done'], {
      onEvent: (e) => {
        if (e.type !== 'audio') return;
        const t = e.timing;
        const timing = t && {
          queuedMs: t.queuedMs,
          workerMs: t.workerMs,
          requestHopMs: t.receivedAbs - calledAbs,
          frameHopMs: performance.timeOrigin + performance.now() - t.postedAbs,
        };
        onFrame({
          pcm: e.pcm,
          sampleRate: e.sampleRate,
          frameIndex: e.frameIndex,
          text: e.text,
          ...(timing ? { timing } : {}),
        });
      },
    });
    // Stopping resolves at once: the caller moves on, the worker stops within one frame and its `done` is ignored.
    const stopped = new Promise<void>((resolve) =>
      signal.addEventListener(
        'abort',
        () => {
          this.channel.post({ type: 'cancel', requestId });
          this.channel.forget(requestId);
          resolve();
        },
        { once: true },
      ),
    );
    await Promise.race([reply.then(() => undefined), stopped]);
  }

  /** Consent-gated cloning in the worker; resolves with the voice (now speakable) and its serialized bytes to store. */
  async clone(
    audio: Float32Array<ArrayBuffer>,
    sampleRate: number,
    name: string,
    consent: VoiceConsent,
  ): Promise<{ voice: VoiceInfo; bytes: Uint8Array }> {
    const { reply } = this.channel.request({ type: 'clone', audio, sampleRate, name, consent }, ['voice-cloned'], {
      transfer: [audio.buffer],
    });
    const { voice, bytes } = await reply;
    return { voice, bytes };
  }

  /** Makes a stored clone speakable again (after every load); resolves with the worker's voice list. */
  async addVoice(bytes: Uint8Array<ArrayBuffer>): Promise<VoiceInfo[]> {
    return (await this.channel.request({ type: 'add-voice', bytes }, ['voices']).reply).voices;
  }

  /** State kept from the worker's events, then the listener. */
  private observe(event: TtsWorkerEvent): void {
    switch (event.type) {
      case 'loaded':
        this.backend = event.backend;
        this.threads = event.threads;
        this.decodeLoop = event.decodeLoop;
        this.backendReason = null;
        this.gpuRefused = event.cpuReason ?? null;
        this.flowCache = event.flowCache ?? null;
        this.onBackendChange?.();
        this.voices = event.voices;
        this.bundleId = event.bundleId;
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
        break;
      case 'voices':
        this.voices = event.voices;
        break;
      default:
        break;
    }
    this.onEvent?.(event);
  }
}
