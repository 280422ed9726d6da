/**
 * The full-duplex conversation policy. Driven by mic frames (one tick per 32 ms VAD frame) and playback events; it
 * calls the injected stages and emits state, caption and timeline events. No timers of its own: the frame stream is
 * the clock tick, and `clock.now()` stamps events (a manual clock in tests, performance.now() in the browser).
 *
 * The engine is a thin policy over composed parts (docs/architecture.md, "The engine, by parts"): the turn controller
 * (turn-controller.ts: the active turn, its states including `held`, the one `end(reason)`), the user's speech
 * (user-speech.ts: utterance, endpointing, ASR drafts, speculation, behind its hooks), the interruption detector
 * (interruption-detector.ts: the barge gates on both microphone tracks), what happens while a turn is active
 * (over-the-reply.ts: merge, hold, barge-in, the reply's echo) and the answers (answers.ts: transcript to reply, lines,
 * history, background work). Here: which part a frame goes to, what an endpoint becomes, and the public controls.
 */
import { engineTunables as T } from '../tunables';
import { Answers } from './answers';
import { rms } from './audio-frames';
import { likenessFields } from './echo-path';
import type { GateFrameLog } from './gate-frames';
import { TwoTrackDetector, type FrameTiming, type InterruptionDetector } from './interruption-detector';
import { OverTheReply } from './over-the-reply';
import { TurnController, type ActiveTurn } from './turn-controller';
import type { LifecycleListener } from './turn-lifecycle';
import type { EngineListener, EngineOptions, EngineState, HistoryMessage, MicFrame, PlaybackEvent } from './types';
import { UserSpeech } from './user-speech';

export type { EngineOptions } from './types';

export class DuplexEngine {
  private readonly turns: TurnController;
  private readonly detector: InterruptionDetector = new TwoTrackDetector();
  private readonly speech: UserSpeech;
  private readonly answers: Answers;
  private readonly overReply: OverTheReply;
  /** The current mic frame's capture time and lag (the echo path's clock, and the trace's). */
  private readonly timing: FrameTiming = { at: 0, lagMs: 0 };

  constructor(private readonly options: EngineOptions) {
    const { clock, stages } = options;
    this.turns = new TurnController(clock, options.turnIdPrefix, () => this.detector.reset());
    this.answers = new Answers(options, this.turns, () => this.afterTurn());
    this.speech = new UserSpeech(clock, stages, options.speculate !== false, this.detector, {
      onSpeechStart: (at, trace) => this.turns.stageOf(this.turns.upcomingId(), 'speech-start', trace, at),
      onDraft: (report) => this.turns.stageOf(this.turns.upcomingId(), 'asr-draft', report),
      onTurnCheck: (probability, pauseStart, at) => this.turnCheck(probability, pauseStart, at),
      onEndpoint: (at, forced) => this.commit(at, forced),
      onNoise: (voicedFrames) => this.turns.stageOf(this.turns.upcomingId(), 'discarded', { reason: 'noise', voicedFrames }),
      onQuiet: (now) => this.maybeDeliverBackground(now),
      onSpeculativeTranscript: (spec, transcript) => this.answers.speculateReply(spec, transcript),
      newTurn: () => this.turns.createTurn('listening'),
      turnActive: () => this.turns.active !== null,
    });
    this.overReply = new OverTheReply({
      options,
      turns: this.turns,
      detector: this.detector,
      speech: this.speech,
      answers: this.answers,
      timing: this.timing,
      interrupt: () => this.interrupt(),
    });
  }

  get state(): EngineState {
    return this.turns.state;
  }

  /** The conversation so far (user and assistant messages); the offscreen document persists or clears it. */
  get messages(): readonly HistoryMessage[] {
    return this.answers.history;
  }

  /** Both gates' frames while `traceGateFrames` is on (the room sweep's, gate-frames.ts). */
  get gateFrames(): GateFrameLog {
    return this.detector.gateFrames;
  }

  /** The diagnostic trace: state, captions and every stage of every turn. */
  on(listener: EngineListener): () => void {
    return this.turns.on(listener);
  }

  /** The active turn's lifecycle: started, speaking, held, resumed, ended with its reason (turn-lifecycle.ts). */
  onLifecycle(listener: LifecycleListener): () => void {
    return this.turns.onLifecycle(listener);
  }

  /**
   * "Forget everything": the conversation kept for the model is emptied, and a reply still in flight is not
   * recorded when it ends, so nothing said before the forget comes back into a later prompt.
   */
  forgetConversation(): void {
    this.answers.forget();
  }

  start(): void {
    this.turns.micOn = true;
    if (this.state === 'idle') this.turns.setState('listening');
  }

  /**
   * A typed message: it interrupts whatever is in flight (like barge-in) and is answered like a spoken turn, without
   * ASR and its confidence gate.
   */
  submitText(text: string): void {
    const clean = text.trim();
    if (!clean) return;
    this.supersede();
    const turn = this.turns.begin(this.turns.createTurn('thinking'), this.options.clock.now());
    this.turns.setState('thinking');
    void this.answers.answer(turn, null, new Float32Array(0), { text: clean, confidence: 1 });
  }

  /**
   * A line the assistant says on its own (a character's greeting after a switch): it interrupts whatever is in
   * flight like a typed turn, is captioned and spoken like a reply, and is remembered as the assistant's words.
   */
  say(text: string): void {
    const clean = text.trim();
    if (!clean) return;
    this.supersede();
    const turn = this.turns.begin(this.turns.createTurn('thinking'), this.options.clock.now());
    this.turns.setState('thinking');
    void this.answers.runLine(turn, clean, true);
  }

  /** A typed turn or a line takes over: whatever was in flight is cancelled. */
  private supersede(): void {
    this.speech.mergedFrom = null;
    this.speech.discardSpeculation(false);
    this.turns.end('superseded');
    this.speech.reset();
  }

  /**
   * Push-to-talk released: the user's turn ends now, without waiting for the endpoint silence. The mic stops feeding
   * frames; the reply still plays, and the engine rests in 'idle' after it.
   */
  releaseTalk(): void {
    this.turns.micOn = false;
    if (!this.turns.active && this.speech.tracker.inSpeech) return this.commit(this.options.clock.now(), true);
    if (!this.turns.active) {
      this.speech.discardSpeculation(false);
      this.speech.reset();
      this.turns.setState('idle');
    }
  }

  /** The user pressed stop: generation, TTS and playback of the current reply end together. */
  interrupt(): void {
    this.speech.discardSpeculation(false);
    const active = this.turns.active;
    if (!active) return;
    this.turns.end('stop', active);
    this.answers.cut(active);
    this.afterTurn();
  }

  /** Mic off: cancel everything in flight. */
  stop(): void {
    this.turns.micOn = false;
    this.speech.mergedFrom = null;
    this.speech.cancelSpeculation('mic-off');
    this.turns.end('mic-off');
    this.answers.background?.abort();
    this.answers.background = null;
    this.speech.reset();
    this.turns.setState('idle');
  }

  /**
   * A reply is playing, so speech over it is weighed: only then does the engine read the unprocessed track's
   * P(speech), and the feed runs that second VAD only then (docs/echo.md, "Both tracks gate a barge-in").
   */
  get listensOverReply(): boolean {
    return this.turns.active?.turn.phase === 'speaking';
  }

  onPlayback(event: PlaybackEvent): void {
    this.overReply.onPlayback(event);
  }

  onFrame(frame: MicFrame): void {
    if (this.state === 'idle') return;
    const now = this.options.clock.now();
    const level = rms(frame.pcm);
    this.timing.lagMs = frame.capturedAt === undefined ? 0 : Math.round(now - frame.capturedAt);
    this.timing.at = frame.capturedAt ?? now;
    const active = this.turns.active;
    if (active) {
      if (now - this.turns.lastProgressAt > T.stallMs) return this.watchdog(active, now);
      if (active.turn.phase === 'speaking') return this.overReply.duringPlayback(active, now, frame, level);
      return this.overReply.beforeAudio(active, now, frame, level);
    }
    this.speech.listen(now, frame, this.timing);
  }

  /** The turn is over (done, failed or stopped): back to listening, or idle with the mic off. */
  private afterTurn(): void {
    this.speech.mergesLeft = 1;
    this.turns.setState(this.turns.micOn ? 'listening' : 'idle');
    this.answers.deliverWithoutMic();
  }

  /** The end-of-turn model's answer: a "finished" one ends the turn as soon as it arrives. */
  private turnCheck(probability: number, pauseStart: number, at: number): void {
    const turnId = this.speech.speculation?.turn.id ?? this.turns.upcomingId();
    this.turns.stageOf(turnId, 'turn-check', { probability, silenceMs: at - pauseStart }, at);
    if (probability >= T.turnCompleteProbability && this.state !== 'idle') this.commit(at, false);
  }

  private commit(now: number, forced: boolean): void {
    const { speech } = this;
    const endOfSpeech = speech.tracker.silenceStart ?? now;
    const spec = speech.takeSpeculation();
    const turn = spec?.turn ?? this.turns.createTurn('thinking');
    turn.advance('thinking');
    turn.stage('end-of-speech', {}, endOfSpeech);
    const echoSuspect = speech.onsetAfterAudibleMs < T.echoMaxDelayMs + T.echoDecayMs;
    // Capture times of the utterance (the engine's clock runs the frame's lag behind the microphone's).
    const lag = this.timing.lagMs;
    const echo = echoSuspect ? this.detector.echoLikeness(speech.tracker.speechStart - lag, endOfSpeech - lag) : null;
    const likeness = echo?.r ?? null;
    const audio = speech.tracker.audio();
    const verdict = echoSuspect ? this.overReply.replyEcho(audio, now - endOfSpeech) : null;
    const matched = verdict ? { echoMatchHead: Math.round(verdict.head), echoMatchOverrunMs: verdict.overrunMs } : {};
    turn.stage('endpoint', { forced, silenceMs: now - endOfSpeech, ...likenessFields(echo), ...matched }, now);
    const { saved, draft } = speech.take();
    const active = this.turns.begin(turn, now);
    active.saved = saved;
    active.echoSuspect = echoSuspect;
    active.echoLikeness = likeness;
    active.echoMatched = verdict?.own ?? false;
    speech.onsetAfterAudibleMs = Infinity;
    const replaces = speech.mergedFrom;
    speech.mergedFrom = null;
    this.turns.setState('thinking');
    void this.answers.answer(active, spec, audio, undefined, replaces, draft);
  }

  private watchdog(active: ActiveTurn, now: number): void {
    active.turn.stage('watchdog', { stalledMs: now - this.turns.lastProgressAt });
    this.turns.end('watchdog', active);
    this.speech.reset();
    this.turns.setState('listening');
  }

  /** A finished task is spoken at the next silence, when nothing else is said. */
  private maybeDeliverBackground(now: number): void {
    const result = this.answers.background?.result ?? null;
    if (result === null || this.speech.speculation) return;
    const { lastVoiceAt } = this.speech.tracker;
    if (now - lastVoiceAt < T.deliverAfterSilenceMs || now - this.detector.lastAudibleAt < T.deliverAfterSilenceMs) return;
    this.answers.deliverBackground(result, now);
  }
}
