import type { TtsWorkerEvent, TtsWorkerRequest, VoiceInfo } from '../../models/tts/pocket/protocol';

export interface TtsFrame {
  pcm: Float32Array;
  sampleRate: number;
  frameIndex: number;
  text: string;
}

type Job = { onFrame: (f: TtsFrame) => void; resolve: () => void; reject: (e: Error) => void };

/** Promise face of the Pocket TTS worker: load a bundle, speak with streamed frames, cancel within one frame. */
export class TtsClient {
  private readonly worker: Worker;
  private readonly jobs = new Map<string, Job>();
  private loadWaiter: { resolve: (v: TtsWorkerEvent & { type: 'loaded' }) => void; reject: (e: Error) => void } | null = null;
  private seq = 0;
  voices: VoiceInfo[] = [];
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

  private receive(event: TtsWorkerEvent): void {
    switch (event.type) {
      case 'loaded':
        this.backend = event.backend;
        this.voices = event.voices;
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
      case 'error': {
        const err = new Error(event.message);
        if (event.requestId) {
          this.jobs.get(event.requestId)?.reject(err);
          this.jobs.delete(event.requestId);
        } else {
          this.loadWaiter?.reject(err);
          this.loadWaiter = null;
        }
        break;
      }
      default:
        break;
    }
    this.onEvent?.(event);
  }
}
