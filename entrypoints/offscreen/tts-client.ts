import type { TtsWorkerEvent, TtsWorkerRequest, VoiceInfo } from '../../models/tts/pocket/protocol';
import type { VoiceConsent } from '../../core/tts/voice-store';

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
  private readonly worker: Worker;
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

  constructor() {
    this.worker = new Worker(new URL('../../models/tts/pocket/tts.worker.ts', import.meta.url), { type: 'module' });
    this.worker.onmessage = (e: MessageEvent<TtsWorkerEvent>) => this.receive(e.data);
    this.worker.onerror = (e) => {
      const err = new Error(`voice worker crashed: ${e.message}`);
      this.loadWaiter?.reject(err);
      for (const job of this.jobs.values()) job.reject(err);
      this.jobs.clear();
      for (const w of [...this.clones.values(), ...this.addWaiters.splice(0)]) w.reject(err);
      this.clones.clear();
    };
  }

  private post(msg: TtsWorkerRequest): void {
    this.worker.postMessage(msg);
  }

  get loaded(): boolean {
    return this.backend !== null;
  }

  load(files: Record<string, string>, verdicts: Record<string, { pass: boolean; reason?: string; at: number }> = {}) {
    return new Promise<TtsWorkerEvent & { type: 'loaded' }>((resolve, reject) => {
      this.loadWaiter = { resolve, reject };
      // The bundle ships int8 graphs only, which are WASM graphs (int8 gives NaN on WebGPU): see docs/tts.md.
      this.post({ type: 'load', files, backend: 'wasm', verdicts });
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
  clone(audio: Float32Array<ArrayBuffer>, sampleRate: number, name: string, consent: VoiceConsent): Promise<{ voice: VoiceInfo; bytes: Uint8Array }> {
    const requestId = `clone-${++this.seq}`;
    return new Promise((resolve, reject) => {
      this.clones.set(requestId, { resolve, reject });
      this.worker.postMessage({ type: 'clone', requestId, audio, sampleRate, name, consent } satisfies TtsWorkerRequest, [audio.buffer]);
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
