/**
 * The user's speech while no turn is active: the utterance (VAD frames, pre-roll), endpointing (the pause, the
 * end-of-turn model, the wording of the speculative transcript), ASR drafts and the speculative transcription
 * (docs/turn-taking.md). It tells the engine what happened through `UserSpeechHooks`; the reply's echo that must not
 * open an utterance is the interruption detector's to judge (interruption-detector.ts).
 */
import { engineTunables as T } from '../tunables';
import { rms } from './audio-frames';
import { AsrDrafts, type DraftReport } from './asr-drafts';
import { EndOfTurnCheck, endpointWindow } from './end-of-turn-check';
import type { FrameTiming, InterruptionDetector } from './interruption-detector';
import { newSpeculation, speculativeAsrQuietMs, type Speculation } from './speculation';
import type { CancelReason, Turn } from './turn';
import type { Clock, EngineStages, MicFrame, Transcript, TurnStageFields } from './types';
import { UtteranceTracker } from './utterance-tracker';

export interface UserSpeechHooks {
  /** An utterance opened at `at`; `trace`: how it stood against the reply's echo. */
  onSpeechStart(at: number, trace: TurnStageFields['speech-start']): void;
  /** A draft transcription ran while the user spoke (asr-drafts.ts). */
  onDraft(report: DraftReport): void;
  /** The end-of-turn model answered for the pause that began at `pauseStart`. */
  onTurnCheck(probability: number, pauseStart: number, at: number): void;
  /** The user's turn ends now; `forced`: without the endpoint's pause (too long an utterance). */
  onEndpoint(at: number, forced: boolean): void;
  /** The utterance ended too short to be a turn; it is dropped after this. */
  onNoise(voicedFrames: number): void;
  /** Nobody is speaking: a finished background task may be spoken. */
  onQuiet(now: number): void;
  /** The speculative transcript is in and the user is still quiet: the reply may be started, held unspoken. */
  onSpeculativeTranscript(spec: Speculation, transcript: Transcript): void;
  /** A turn for a speculation (it becomes the active turn at the endpoint). */
  newTurn(): Turn;
  /** A turn is active (an end-of-turn answer that comes after the endpoint is late). */
  turnActive(): boolean;
}

export class UserSpeech {
  readonly tracker = new UtteranceTracker();
  private readonly drafts: AsrDrafts;
  private readonly endOfTurn: EndOfTurnCheck;
  private spec: Speculation | null = null;
  /** The words of a speculation dropped as stale inside the same pause (see `listen`). */
  private staleHint: string | null = null;
  /** How long after the last audible playback the current utterance opened (Infinity: not right after a reply). */
  onsetAfterAudibleMs = Infinity;
  /** The turn a merged continuation replaces: its partial user line gives way to the merged one (docs/onboarding.md). */
  mergedFrom: string | null = null;
  /** Continuation-merges left before the next turn ends (one per turn). */
  mergesLeft = 1;

  constructor(
    private readonly clock: Clock,
    private readonly stages: EngineStages,
    private readonly speculate: boolean,
    private readonly detector: InterruptionDetector,
    private readonly hooks: UserSpeechHooks,
  ) {
    this.drafts = new AsrDrafts(
      (pcm, signal, draft) => stages.transcribe(pcm, signal, draft),
      () => stages.draftsAffordable?.() ?? false,
      () => clock.now(),
      (report) => hooks.onDraft(report),
    );
    this.endOfTurn = new EndOfTurnCheck(stages.endOfTurn?.bind(stages));
  }

  /** The speculative turn of the current pause, if one was started. */
  get speculation(): Speculation | null {
    return this.spec;
  }

  /** One mic frame while no turn is active. */
  listen(now: number, frame: MicFrame, timing: FrameTiming): void {
    this.drafts.onFrame();
    const { tracker, detector } = this;
    // On the capture clock: a frame handled late (a feed behind real time) was heard when it was captured, and the
    // reply's echo follows when the playback was heard, not when the engine learnt of it (docs/echo.md, "Which clock").
    const sinceAudibleMs = timing.at - detector.lastAudibleHeardAt;
    const echoLevel = rms(frame.pcm);
    if (sinceAudibleMs < T.echoMaxDelayMs + T.echoDecayMs) detector.recordListening(timing.at, echoLevel);
    // The tail of our own playback is still in the room: keep it as pre-roll but do not open an utterance on it.
    if (!tracker.inSpeech && sinceAudibleMs < T.echoTailMs) return tracker.observe(frame.pcm);
    // The reply's echo may still be arriving (a longer path, the room's reverb): only a voice above it opens an
    // utterance; above the unprocessed track's echo too, which the canceller lets through once the reply stops.
    const released = !tracker.inSpeech ? detector.releasedEcho(timing.at) : 0;
    if (!tracker.inSpeech && detector.heldByEcho(timing.at, sinceAudibleMs, echoLevel, released)) {
      tracker.observe(frame.pcm);
      return this.hooks.onQuiet(now);
    }
    const event = tracker.onFrame(now, frame.pcm, frame.prob);
    if (event.kind === 'onset') {
      this.onsetAfterAudibleMs = sinceAudibleMs;
      this.hooks.onSpeechStart(event.at, detector.onsetTrace(timing.lagMs, this.onsetAfterAudibleMs, echoLevel, released));
    }
    if (event.kind === 'resume' || event.kind === 'onset') this.staleHint = null;
    if (event.kind === 'resume' && this.spec) this.discardSpeculation();
    if (!tracker.inSpeech) return this.hooks.onQuiet(now);

    if (tracker.speechMs(now) >= T.maxUtteranceMs) return this.hooks.onEndpoint(now, true);
    const silence = tracker.silenceMs(now);
    if (silence <= 0) return this.drafts.onSpeech(tracker.voicedFrames, () => tracker.audio());
    const real = tracker.voicedFrames >= T.minVoicedFrames && tracker.speechMs(now) >= T.minSpeechMs;
    if (real && silence >= T.turnCheckMs) this.checkEndOfTurn();
    // Voiced audio after the speculative ASR's audio ended: its transcript is stale (a low-confidence resume that the
    // tracker's hysteresis does not call a resume). Speculation restarts once it is quiet again.
    if (this.spec && tracker.voicedFrames > this.spec.voicedFrames) {
      // Its words still say how the pause sounds (trailing "and…") until the new transcript arrives.
      this.staleHint = this.spec.transcript?.text ?? this.staleHint;
      this.discardSpeculation();
    }
    const quiet = now - tracker.lastVoiceAt;
    if (real && !this.spec && this.speculate && this.mayStartSpeculation(quiet)) this.startSpeculation(now);
    const spec = this.spec;
    if (spec?.transcript && !spec.triedReply && quiet >= T.speculativeReplyMs)
      this.hooks.onSpeculativeTranscript(spec, spec.transcript);
    if (silence < this.endpointWindow()) return;
    if (real) return this.hooks.onEndpoint(now, false);
    this.hooks.onNoise(tracker.voicedFrames);
    this.discardSpeculation(false);
    this.reset();
  }

  /**
   * On the CPU the end-of-turn question goes to the model worker first: speculative ASR queued ahead of it would delay
   * the answer that ends the turn (the worker runs one model at a time). Where drafts run (a hardware GPU), model runs
   * are short and the transcription starts earlier, question or not (docs/turn-taking.md, "Speculation").
   */
  private mayStartSpeculation(quiet: number): boolean {
    const drafts = this.drafts.active;
    if (quiet < speculativeAsrQuietMs(drafts)) return false;
    return drafts || !this.endOfTurn.enabled || this.endOfTurn.askedFor(this.tracker.silenceStart);
  }

  private endpointWindow(): number {
    const text = this.spec?.transcript?.text ?? this.staleHint ?? undefined;
    return endpointWindow(this.endOfTurn.answerFor(this.tracker.silenceStart), text);
  }

  /** Asks the end-of-turn model once per pause; the engine decides what its answer does (`onTurnCheck`). */
  private checkEndOfTurn(): void {
    const pauseStart = this.tracker.silenceStart;
    this.endOfTurn.ask(
      () => this.tracker.audio(),
      pauseStart,
      () => this.tracker.silenceStart === pauseStart && !this.hooks.turnActive(),
      (probability) => this.hooks.onTurnCheck(probability, pauseStart!, this.clock.now()),
    );
  }

  /** The utterance so far is dropped: its audio and its ASR draft. */
  reset(): void {
    this.tracker.reset();
    this.drafts.reset();
  }

  /** At the endpoint: the speculation becomes the turn (the engine takes it). */
  takeSpeculation(): Speculation | null {
    const spec = this.spec;
    this.spec = null;
    return spec;
  }

  /** At the endpoint: the utterance's frames and draft go to the turn, and listening starts afresh. */
  take(): {
    saved: { frames: Float32Array[]; speechStart: number; voiced: number };
    draft: Promise<readonly number[] | undefined>;
  } {
    const saved = { frames: this.tracker.takeFrames(), speechStart: this.tracker.speechStart, voiced: this.tracker.voicedFrames };
    const draft = this.drafts.take();
    this.tracker.reset();
    return { saved, draft };
  }

  private startSpeculation(now: number): void {
    const turn = this.hooks.newTurn();
    turn.stage('tentative-endpoint', { silenceMs: this.tracker.silenceMs(now) });
    const spec = newSpeculation(turn, this.tracker.voicedFrames);
    const audio = this.tracker.audio();
    const utterance = this.drafts.utterance;
    // The draft in flight covers most of this audio: waiting for it costs nothing (the worker runs one at a time).
    spec.transcriptPromise = this.drafts
      .current()
      .then((draft) => {
        if (turn.signal.aborted) return null;
        turn.stage('asr-start', { speculative: true, draftTokens: draft?.length ?? 0 });
        return this.stages.transcribe(audio, turn.signal, draft);
      })
      .then(
        (transcript) => {
          if (turn.signal.aborted || !transcript) return null;
          this.drafts.learn(transcript, utterance);
          spec.transcript = transcript;
          turn.stage('transcript', { speculative: true, draftAccepted: transcript.draftAccepted ?? 0 });
          const quiet = this.clock.now() - this.tracker.lastVoiceAt;
          if (this.spec === spec && quiet >= T.speculativeReplyMs) this.hooks.onSpeculativeTranscript(spec, transcript);
          return transcript;
        },
        () => null,
      );
    this.spec = spec;
  }

  /** The user resumed before the endpoint (or something else took over): the speculative turn is dropped unheard. */
  discardSpeculation(announce = true): void {
    const spec = this.spec;
    if (!spec) return;
    if (announce) spec.turn.stage('speculation-discarded', {});
    this.cancelSpeculation('resumed');
  }

  cancelSpeculation(reason: CancelReason): void {
    this.spec?.turn.cancel(reason);
    this.spec = null;
  }
}
