/**
 * ASR drafts (docs/turn-taking.md, "ASR drafts"): while the user speaks, the utterance so far is transcribed every
 * `asrDraftEveryMs` of voiced audio, each time with the previous transcript as the recognizer's draft. The
 * transcription that ends the turn then gets the latest draft and decodes only the words after it. Only where a
 * transcription is cheap (the speech models on the GPU): on one CPU core it would hold up the voice detection. A
 * recognizer that cannot keep up (a draft still running after `asrDraftEveryMs`) gets its draft cancelled and no more
 * drafts this session.
 */
import { engineTunables as T } from '../tunables';
import { FRAME_MS } from './audio-frames';
import type { GpuInfo } from '../protocol';
import { hardwareGpu } from '../weights/default-set';
import type { Transcript } from './types';

/**
 * Drafts are affordable where the speech models run on a hardware GPU: on the CPU, or on a software WebGPU adapter
 * (SwiftShader, which runs on the CPU too), a transcription during speech takes the cores the rest of the turn needs,
 * and the final transcription waits for the draft in flight (docs/turn-taking.md, "ASR drafts").
 */
export function draftsAffordable(
  backend: 'webgpu' | 'wasm' | null,
  gpu: Pick<GpuInfo, 'isFallbackAdapter' | 'architecture'> | null,
): boolean {
  return backend === 'webgpu' && !!gpu && hardwareGpu({ available: true, ...gpu });
}

type Draft = readonly number[] | undefined;

/** What one draft transcription did, for the turn's trace. */
export interface DraftReport {
  ms: number;
  draftTokens: number;
  draftAccepted: number;
  /** It took longer than its interval (or was cancelled for that): drafts are off for the session. */
  slow: boolean;
}

export class AsrDrafts {
  /** The newest draft of the current utterance. */
  private latest: Draft;
  /** The draft transcription in flight; it settles to the draft it leaves. */
  private job: Promise<Draft> | null = null;
  private controller: AbortController | null = null;
  private voicedAtLast = 0;
  /** Moves on with every new utterance: a late draft of an old one is dropped. */
  private epoch = 0;
  /** When the draft in flight started. */
  private startedAt = 0;
  /** A draft could not keep up with speech: none for the rest of the session. */
  tooSlow = false;

  constructor(
    private readonly transcribe: (pcm: Float32Array, signal: AbortSignal, draft?: readonly number[]) => Promise<Transcript>,
    private readonly affordable: () => boolean,
    private readonly now: () => number,
    private readonly report: (r: DraftReport) => void = () => undefined,
  ) {}

  /** Drafts run for this session: the speech models are on a hardware GPU and have kept up so far. */
  get active(): boolean {
    return T.asrDraftEveryMs > 0 && !this.tooSlow && this.affordable();
  }

  /** Every frame: a draft still running after its interval is cancelled (its partial tokens still make a draft). */
  onFrame(): void {
    if (!this.controller || this.now() - this.startedAt <= T.asrDraftEveryMs) return;
    this.tooSlow = true;
    this.controller.abort();
  }

  /** During speech: a new draft once enough voiced audio came since the last one and none is in flight. */
  onSpeech(voicedFrames: number, audio: () => Float32Array): void {
    if (this.job || !this.active) return;
    if ((voicedFrames - this.voicedAtLast) * FRAME_MS < T.asrDraftEveryMs) return;
    this.voicedAtLast = voicedFrames;
    const epoch = this.epoch;
    const controller = new AbortController();
    this.controller = controller;
    const previous = this.latest;
    const startedAt = this.now();
    this.startedAt = startedAt;
    const job = this.transcribe(audio(), controller.signal, previous).then(
      (t) => {
        const ms = this.now() - startedAt;
        if (ms > T.asrDraftEveryMs) this.tooSlow = true;
        const draftAccepted = t.draftAccepted ?? 0;
        this.report({ ms, draftTokens: previous?.length ?? 0, draftAccepted, slow: this.tooSlow });
        // Tokens decoded before a cancellation are still the decoder's own: a shorter draft, not a wrong one.
        const draft = t.draft?.length ? t.draft : previous;
        if (epoch === this.epoch) this.latest = draft;
        return draft;
      },
      () => {
        const draftTokens = previous?.length ?? 0;
        this.report({ ms: this.now() - startedAt, draftTokens, draftAccepted: 0, slow: this.tooSlow });
        return previous;
      },
    );
    this.job = job;
    void job.finally(() => {
      if (this.job === job) {
        this.job = null;
        this.controller = null;
      }
    });
  }

  /** The draft for a transcription of the utterance starting now: the one in flight is waited for (it is ahead). */
  current(): Promise<Draft> {
    return this.job ?? Promise.resolve(this.latest);
  }

  /** Which utterance this is: moves on with every new one (`take`, `reset`). */
  get utterance(): number {
    return this.epoch;
  }

  /** A transcript of utterance `utterance` so far (the speculative one) is the best draft for a later one of it. */
  learn(transcript: Transcript, utterance: number): void {
    if (utterance === this.epoch && transcript.draft?.length) this.latest = transcript.draft;
  }

  /** The utterance became a turn: its draft goes with it (the job in flight is left to finish), and the next starts afresh. */
  take(): Promise<Draft> {
    const draft = this.current();
    this.forget();
    return draft;
  }

  /** The utterance was dropped (noise, a typed turn, mic off): its draft transcription is cancelled. */
  reset(): void {
    this.controller?.abort();
    this.forget();
  }

  private forget(): void {
    this.epoch += 1;
    this.job = null;
    this.controller = null;
    this.latest = undefined;
    this.voicedAtLast = 0;
  }
}
