/**
 * ASR drafts (docs/turn-taking.md, "ASR drafts"): while the user speaks, the utterance so far is transcribed every
 * `asrDraftEveryMs` of voiced audio, each time with the previous transcript as the recognizer's draft. The
 * transcription that ends the turn then gets the latest draft and decodes only the words after it. Only where a
 * transcription is cheap (the speech models on the GPU): on one CPU core it would hold up the voice detection.
 */
import { engineTunables as T } from '../tunables';
import { FRAME_MS } from './audio-frames';
import type { Transcript } from './types';

type Draft = readonly number[] | undefined;

export class AsrDrafts {
  /** The newest draft of the current utterance. */
  private latest: Draft;
  /** The draft transcription in flight; it settles to the draft it leaves. */
  private job: Promise<Draft> | null = null;
  private controller: AbortController | null = null;
  private voicedAtLast = 0;
  /** Moves on with every new utterance: a late draft of an old one is dropped. */
  private epoch = 0;
  /** Draft transcriptions started (for the trace and the tests). */
  started = 0;

  constructor(
    private readonly transcribe: (pcm: Float32Array, signal: AbortSignal, draft?: readonly number[]) => Promise<Transcript>,
    private readonly affordable: () => boolean,
  ) {}

  /** During speech: a new draft once enough voiced audio came since the last one and none is in flight. */
  onSpeech(voicedFrames: number, audio: () => Float32Array): void {
    if (this.job || T.asrDraftEveryMs <= 0 || !this.affordable()) return;
    if ((voicedFrames - this.voicedAtLast) * FRAME_MS < T.asrDraftEveryMs) return;
    this.voicedAtLast = voicedFrames;
    this.started += 1;
    const epoch = this.epoch;
    const controller = new AbortController();
    this.controller = controller;
    const previous = this.latest;
    const job = this.transcribe(audio(), controller.signal, previous).then(
      (t) => {
        const draft = t.draft?.length ? t.draft : previous;
        if (epoch === this.epoch && !controller.signal.aborted) this.latest = draft;
        return draft;
      },
      () => previous,
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
