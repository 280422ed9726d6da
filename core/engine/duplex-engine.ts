/**
 * The full-duplex conversation policy. Driven by mic frames (one tick per 32 ms VAD frame) and playback events; it
 * calls the injected stages and emits state, caption and timeline events. No timers of its own: the frame stream is
 * the clock tick, and `clock.now()` stamps events (a manual clock in tests, performance.now() in the browser).
 *
 * Listening: onset → utterance → tentative endpoint (speculative ASR, and LLM if the text sounds complete, held
 * unspoken) → endpoint after an adaptive silence → answer. Resuming before the endpoint discards the speculation;
 * resuming after it but before any reply audio merges both halves into one turn. While the reply plays, a barge-in
 * (VAD and energy over the echo estimate) aborts ASR/LLM/TTS/playback through the turn's one AbortController.
 */
import { FactMemory } from '../memory/fact-memory';
import { phraseCompleteness } from '../text/phrase-completeness';
import { isGarbledTranscript, isNonSpeechTranscript } from '../text/transcript-quality';
import { engineTunables as T } from '../tunables';
import { FRAME_MS, rms } from './audio-frames';
import { BargeDetector } from './barge-detector';
import { LINES } from './lines';
import { ReplyRunner, lineSource, type ReplyOutcome } from './reply-runner';
import { formatLocalDateTime } from './time-context';
import type {
  BackgroundTask,
  ChatMessage,
  Clock,
  EngineEvent,
  EngineListener,
  EngineStages,
  EngineState,
  MarkDetail,
  MarkName,
  MicFrame,
  PlaybackEvent,
  Transcript,
  UserTurn,
} from './types';
import { UtteranceTracker } from './utterance-tracker';

export interface EngineOptions {
  clock: Clock;
  stages: EngineStages;
  memory?: FactMemory;
  timeZone?: string;
  /** Start the ASR (and LLM) at the tentative endpoint. On by default; benches turn it off to compare. */
  speculate?: boolean;
}

interface Speculation {
  turnId: number;
  controller: AbortController;
  transcript: Transcript | null;
  transcriptPromise: Promise<Transcript | null>;
  reply: ReplyRunner | null;
  replyText: string | null;
  replyController: AbortController | null;
}

interface ActiveTurn {
  id: number;
  kind: 'reply' | 'line';
  controller: AbortController;
  endpointAt: number;
  /** The committed utterance, kept for a continuation-merge; null for lines. */
  saved: { frames: Float32Array[]; speechStart: number; voiced: number } | null;
  gap: Float32Array[];
  reply: ReplyRunner | null;
  historyIndex: number | null;
  audioStarted: boolean;
  playing: boolean;
  pendingAudio: boolean;
  genDone: boolean;
  /** Pushed to history as the assistant's words when the line completes. */
  recordAsAssistant: boolean;
}

export class DuplexEngine {
  private stateValue: EngineState = 'idle';
  private readonly listeners = new Set<EngineListener>();
  private readonly tracker = new UtteranceTracker();
  private readonly barge = new BargeDetector();
  private readonly history: ChatMessage[] = [];
  private turnSeq = 0;
  private active: ActiveTurn | null = null;
  private speculation: Speculation | null = null;
  private background: { controller: AbortController; result: string | null } | null = null;
  private lastProgressAt = 0;
  private lastAudibleAt = -Infinity;
  private mergesLeft = 1;
  /** Hands-free on: the mic feeds frames. Typed turns work with it off, and the engine rests in 'idle' after them. */
  private micOn = false;

  constructor(private readonly options: EngineOptions) {}

  get state(): EngineState {
    return this.stateValue;
  }

  /** The conversation so far (user and assistant messages); the offscreen document persists or clears it. */
  get messages(): readonly ChatMessage[] {
    return this.history;
  }

  on(listener: EngineListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    this.micOn = true;
    if (this.stateValue === 'idle') this.setState('listening');
  }

  /**
   * A typed message: it interrupts whatever is in flight (like barge-in) and is answered like a spoken turn, without
   * ASR and its confidence gate.
   */
  submitText(text: string): void {
    const clean = text.trim();
    if (!clean) return;
    this.discardSpeculation(false);
    this.active?.controller.abort();
    this.active = null;
    this.tracker.reset();
    const turn = this.newTurn(++this.turnSeq, 'reply', new AbortController(), this.options.clock.now());
    this.lastProgressAt = this.options.clock.now();
    this.setState('thinking');
    void this.answer(turn, null, new Float32Array(0), { text: clean, confidence: 1 });
  }

  /**
   * A line the assistant says on its own (a character's greeting after a switch): it interrupts whatever is in
   * flight like a typed turn, is captioned and spoken like a reply, and is remembered as the assistant's words.
   */
  say(text: string): void {
    const clean = text.trim();
    if (!clean) return;
    this.discardSpeculation(false);
    this.active?.controller.abort();
    this.active = null;
    this.tracker.reset();
    const turn = this.newTurn(++this.turnSeq, 'line', new AbortController(), this.options.clock.now());
    this.setState('thinking');
    void this.runLine(turn, clean, true);
  }

  /**
   * Push-to-talk released: the user's turn ends now, without waiting for the endpoint silence. The mic stops feeding
   * frames; the reply still plays, and the engine rests in 'idle' after it.
   */
  releaseTalk(): void {
    this.micOn = false;
    if (!this.active && this.tracker.inSpeech) return this.commit(this.options.clock.now(), true);
    if (!this.active) {
      this.discardSpeculation(false);
      this.tracker.reset();
      this.setState('idle');
    }
  }

  /** The user pressed stop: generation, TTS and playback of the current reply end together. */
  interrupt(): void {
    this.discardSpeculation(false);
    const turn = this.active;
    if (!turn) return;
    turn.controller.abort();
    this.mark('barge-in', turn.id, { manual: true });
    this.finish(turn);
  }

  /** Mic off: abort everything in flight. */
  stop(): void {
    this.micOn = false;
    this.speculation?.controller.abort();
    this.speculation = null;
    this.active?.controller.abort();
    this.active = null;
    this.background?.controller.abort();
    this.background = null;
    this.tracker.reset();
    this.setState('idle');
  }

  onPlayback(event: PlaybackEvent): void {
    const now = this.options.clock.now();
    if (event.type === 'level') {
      this.barge.onPlaybackLevel(now, event.rms);
      if (event.rms > T.playbackAudibleRms) this.lastAudibleAt = now;
      return;
    }
    const turn = this.active;
    if (!turn || event.turnId !== turn.id) return;
    this.lastProgressAt = now;
    if (event.type === 'started') {
      turn.playing = true;
      if (!turn.audioStarted) {
        turn.audioStarted = true;
        this.mark('playback-started', turn.id);
        this.setState('speaking');
      }
    } else {
      turn.playing = false;
      turn.pendingAudio = false;
      if (turn.genDone) this.finish(turn);
    }
  }

  onFrame(frame: MicFrame): void {
    if (this.stateValue === 'idle') return;
    const now = this.options.clock.now();
    const level = rms(frame.pcm);
    const turn = this.active;
    if (turn) {
      if (now - this.lastProgressAt > T.stallMs) return this.watchdog(turn, now);
      if (turn.audioStarted) return this.duringPlayback(turn, now, frame, level);
      return this.beforeAudio(turn, now, frame, level);
    }
    this.listening(now, frame);
  }

  // ---- listening ------------------------------------------------------------------------------------------------

  private listening(now: number, frame: MicFrame): void {
    // The tail of our own playback is still in the room: keep it as pre-roll but do not open an utterance on it.
    if (!this.tracker.inSpeech && now - this.lastAudibleAt < T.echoTailMs) return this.tracker.observe(frame.pcm);
    const event = this.tracker.onFrame(now, frame.pcm, frame.prob);
    if (event.kind === 'onset') this.mark('speech-start', this.turnSeq + 1, undefined, event.at);
    if (event.kind === 'resume' && this.speculation) this.discardSpeculation();
    if (!this.tracker.inSpeech) return this.maybeDeliverBackground(now);

    if (this.tracker.speechMs(now) >= T.maxUtteranceMs) return this.commit(now, true);
    const silence = this.tracker.silenceMs(now);
    if (silence <= 0) return;
    const real = this.tracker.voicedFrames >= T.minVoicedFrames && this.tracker.speechMs(now) >= T.minSpeechMs;
    if (real && !this.speculation && this.options.speculate !== false && silence >= T.tentativeEndpointMs) {
      this.startSpeculation(now);
    }
    if (silence < this.endpointWindow()) return;
    if (real) return this.commit(now, false);
    this.mark('discarded', this.turnSeq + 1, { reason: 'noise', voicedFrames: this.tracker.voicedFrames });
    this.discardSpeculation(false);
    this.tracker.reset();
  }

  /** Adaptive endpoint: short after a complete-sounding phrase, long after "and…/so…/um". */
  private endpointWindow(): number {
    const text = this.speculation?.transcript?.text;
    if (text === undefined) return T.endpointSilenceMs;
    const kind = phraseCompleteness(text);
    return kind === 'complete' ? T.endpointCompleteMs : kind === 'trailing' ? T.endpointTrailingMs : T.endpointSilenceMs;
  }

  private startSpeculation(now: number): void {
    const turnId = ++this.turnSeq;
    const controller = new AbortController();
    this.mark('tentative-endpoint', turnId, { silenceMs: this.tracker.silenceMs(now) });
    this.mark('asr-start', turnId, { speculative: true });
    const spec: Speculation = {
      turnId,
      controller,
      transcript: null,
      transcriptPromise: Promise.resolve(null),
      reply: null,
      replyText: null,
      replyController: null,
    };
    spec.transcriptPromise = this.options.stages.transcribe(this.tracker.audio(), controller.signal).then(
      (transcript) => {
        if (controller.signal.aborted) return null;
        spec.transcript = transcript;
        this.mark('asr-done', turnId, { speculative: true });
        if (this.speculation === spec) this.speculateReply(spec, transcript);
        return transcript;
      },
      () => null,
    );
    this.speculation = spec;
  }

  /** Start the LLM early, held unspoken, when the text sounds like a finished, answerable request. */
  private speculateReply(spec: Speculation, transcript: Transcript): void {
    const text = transcript.text.trim();
    if (!this.acceptable(transcript) || phraseCompleteness(text) !== 'complete') return;
    const turn = this.buildTurn(spec.turnId, text);
    if (!this.background && this.options.stages.route?.(turn)) return; // tool turns start at the endpoint
    this.mark('llm-start', spec.turnId, { speculative: true });
    // Its own controller, tied to the turn's: a tool route at the endpoint can drop it without aborting the turn.
    const replyController = new AbortController();
    spec.controller.signal.addEventListener('abort', () => replyController.abort(), { once: true });
    spec.replyText = text;
    spec.replyController = replyController;
    spec.reply = this.newReply(spec.turnId, this.options.stages.respond(turn, replyController.signal), replyController, true);
  }

  private discardSpeculation(announce = true): void {
    const spec = this.speculation;
    if (!spec) return;
    spec.controller.abort();
    this.speculation = null;
    if (announce) this.mark('speculation-discarded', spec.turnId);
  }

  private commit(now: number, forced: boolean): void {
    const endOfSpeech = this.tracker.silenceStart ?? now;
    const spec = this.speculation;
    this.speculation = null;
    const id = spec?.turnId ?? ++this.turnSeq;
    this.mark('end-of-speech', id, undefined, endOfSpeech);
    this.mark('endpoint', id, { forced, silenceMs: now - endOfSpeech });
    const audio = this.tracker.audio();
    const saved = { frames: this.tracker.takeFrames(), speechStart: this.tracker.speechStart, voiced: this.tracker.voicedFrames };
    this.tracker.reset();
    const turn = this.newTurn(id, 'reply', spec?.controller ?? new AbortController(), now);
    turn.saved = saved;
    this.setState('thinking');
    void this.answer(turn, spec, audio);
  }

  private async answer(turn: ActiveTurn, spec: Speculation | null, audio: Float32Array, typed?: Transcript): Promise<void> {
    const { signal } = turn.controller;
    let transcript: Transcript | null = typed ?? spec?.transcript ?? null;
    if (!transcript && spec) transcript = await spec.transcriptPromise;
    if (!transcript && !signal.aborted) {
      this.mark('asr-start', turn.id, { speculative: false });
      transcript = await this.options.stages.transcribe(audio, signal).catch(() => null);
      if (transcript) this.mark('asr-done', turn.id, { speculative: false });
    }
    if (this.active !== turn || signal.aborted) return;
    this.lastProgressAt = this.options.clock.now();
    const text = transcript?.text.trim() ?? '';
    if (!transcript || isNonSpeechTranscript(text)) {
      this.mark('discarded', turn.id, { reason: 'empty' });
      return this.finish(turn);
    }
    if (!typed && !this.acceptable(transcript)) {
      this.mark('clarify', turn.id, { confidence: transcript.confidence });
      return this.runLine(turn, LINES.clarify, false);
    }
    this.emit({ type: 'caption', role: 'user', text, final: true, turnId: turn.id, at: this.options.clock.now() });
    this.options.memory?.observe(text, this.options.clock.now());
    const userTurn = this.buildTurn(turn.id, text);
    turn.historyIndex = this.history.push({ role: 'user', text }) - 1;
    const task = this.background ? null : (this.options.stages.route?.(userTurn) ?? null);
    if (task) {
      spec?.replyController?.abort();
      this.startBackground(task, turn.id);
      this.mark('holding-line', turn.id);
      return this.runLine(turn, task.holdingLine, true);
    }
    let reply = spec?.reply && spec.replyText === text ? spec.reply : null;
    if (!reply) spec?.replyController?.abort();
    if (reply) {
      reply.release();
    } else {
      this.mark('llm-start', turn.id, { speculative: false });
      reply = this.newReply(turn.id, this.options.stages.respond(userTurn, signal), turn.controller, false);
    }
    turn.reply = reply;
    this.afterReply(turn, await reply.done);
  }

  private acceptable(transcript: Transcript): boolean {
    return transcript.confidence >= T.asrMinConfidence && !isGarbledTranscript(transcript.text);
  }

  private buildTurn(turnId: number, text: string): UserTurn {
    const date = this.options.clock.date?.();
    return {
      turnId,
      text,
      history: this.history.slice(-T.historyMessages),
      memory: (this.options.memory?.select(text) ?? []).map((f) => FactMemory.describe(f)),
      localTime: date ? formatLocalDateTime(date, 'en-GB', this.options.timeZone) : '',
      backgroundBusy: this.background !== null,
    };
  }

  // ---- replies and lines ------------------------------------------------------------------------------------------

  private newTurn(id: number, kind: ActiveTurn['kind'], controller: AbortController, now: number): ActiveTurn {
    const turn: ActiveTurn = {
      id,
      kind,
      controller,
      endpointAt: now,
      saved: null,
      gap: [],
      reply: null,
      historyIndex: null,
      audioStarted: false,
      playing: false,
      pendingAudio: false,
      genDone: false,
      recordAsAssistant: true,
    };
    this.active = turn;
    this.lastProgressAt = now;
    this.barge.reset();
    return turn;
  }

  private newReply(turnId: number, source: AsyncIterable<string>, controller: AbortController, held: boolean): ReplyRunner {
    return new ReplyRunner(
      source,
      this.options.stages.speak,
      turnId,
      controller.signal,
      this.options.clock,
      {
        mark: (name, detail) => this.mark(name, turnId, detail),
        caption: (text, final) =>
          this.emit({ type: 'caption', role: 'assistant', text, final, turnId, at: this.options.clock.now() }),
        progress: () => {
          if (this.active?.id === turnId) this.lastProgressAt = this.options.clock.now();
        },
        queued: () => {
          if (this.active?.id === turnId) this.active.pendingAudio = true;
        },
      },
      held,
    );
  }

  /** Speak a fixed line as this turn's reply (clarify, holding line, tool result). */
  private async runLine(turn: ActiveTurn, text: string, recordAsAssistant: boolean): Promise<void> {
    turn.recordAsAssistant = recordAsAssistant;
    turn.reply = this.newReply(turn.id, lineSource(text), turn.controller, false);
    this.afterReply(turn, await turn.reply.done);
  }

  private afterReply(turn: ActiveTurn, outcome: ReplyOutcome): void {
    if (this.active !== turn || outcome === 'aborted') return;
    turn.genDone = true;
    this.options.stages.audioComplete?.(turn.id);
    if (!turn.pendingAudio && !turn.playing) this.finish(turn);
  }

  private finish(turn: ActiveTurn): void {
    if (this.active !== turn) return;
    const spoken = turn.reply?.spoken ?? '';
    if (spoken && turn.recordAsAssistant) this.history.push({ role: 'assistant', text: spoken });
    this.mark('reply-done', turn.id);
    this.active = null;
    this.mergesLeft = 1;
    this.setState(this.micOn ? 'listening' : 'idle');
    this.deliverWithoutMic();
  }

  // ---- the user speaks while a turn is active ----------------------------------------------------------------------

  /** Before any reply audio was heard: the user resumed. Merge both halves, or start over with the new speech. */
  private beforeAudio(turn: ActiveTurn, now: number, frame: MicFrame, level: number): void {
    if (turn.saved) turn.gap.push(frame.pcm);
    const event = this.tracker.onFrame(now, frame.pcm, frame.prob);
    if (event.kind !== 'onset') return;
    if (level < T.resumeMinRms) return this.tracker.reset();
    turn.controller.abort();
    this.active = null;
    if (turn.historyIndex !== null) this.history.splice(turn.historyIndex, 1);
    if (turn.saved && this.mergesLeft > 0 && now - turn.endpointAt <= T.mergeWindowMs) {
      this.mergesLeft--;
      this.mark('merge', turn.id, { afterEndpointMs: now - turn.endpointAt });
      const frames = turn.saved.frames.concat(turn.gap);
      this.tracker.adopt(frames, turn.saved.speechStart, turn.saved.voiced + this.tracker.voicedFrames);
    } else {
      this.mark('speech-start', this.turnSeq + 1, { beforeAudio: true }, event.at);
    }
    this.setState('listening');
  }

  private duringPlayback(turn: ActiveTurn, now: number, frame: MicFrame, level: number): void {
    this.tracker.observe(frame.pcm);
    const decision = this.barge.onFrame(now, frame.prob, level);
    if (!decision.fired || decision.onsetAt === undefined) return;
    const onsetAt = decision.onsetAt;
    turn.controller.abort();
    this.active = null;
    this.mark('barge-onset', turn.id, undefined, onsetAt);
    this.mark('barge-in', turn.id, { latencyMs: now - onsetAt });
    const spoken = turn.reply?.spoken ?? '';
    if (spoken && turn.recordAsAssistant) this.history.push({ role: 'assistant', text: `${spoken} [interrupted]` });
    if (spoken) this.emit({ type: 'caption', role: 'assistant', text: `${spoken} —`, final: true, turnId: turn.id, at: now });
    // The new utterance starts with pre-roll before the onset (the first syllable rose before the VAD did).
    const runFrames = Math.round((now - onsetAt) / FRAME_MS);
    this.tracker.startUtterance(onsetAt, runFrames + Math.round(T.bargePreRollMs / FRAME_MS), runFrames);
    this.mergesLeft = 1;
    this.mark('speech-start', this.turnSeq + 1, { barge: true }, onsetAt);
    this.setState('listening');
  }

  private watchdog(turn: ActiveTurn, now: number): void {
    turn.controller.abort();
    this.active = null;
    this.mark('watchdog', turn.id, { stalledMs: now - this.lastProgressAt });
    this.tracker.reset();
    this.setState('listening');
  }

  // ---- background work ----------------------------------------------------------------------------------------------

  private startBackground(task: BackgroundTask, turnId: number): void {
    const controller = new AbortController();
    const job = { controller, result: null as string | null };
    this.background = job;
    this.mark('background-start', turnId);
    task.run(controller.signal).then(
      (result) => {
        if (this.background !== job) return;
        job.result = result;
        this.mark('background-done', turnId);
        this.deliverWithoutMic();
      },
      () => {
        if (this.background === job) this.background = null;
      },
    );
  }

  /** A finished task is spoken at the next silence, when nothing else is said. */
  private maybeDeliverBackground(now: number): void {
    const job = this.background;
    if (!job || job.result === null || this.speculation) return;
    if (now - this.tracker.lastVoiceAt < T.deliverAfterSilenceMs || now - this.lastAudibleAt < T.deliverAfterSilenceMs) return;
    this.deliverBackground(job.result, now);
  }

  /** With the mic off (typed turns) no frames arrive to find a silence: speak the result once nothing else is. */
  private deliverWithoutMic(): void {
    const job = this.background;
    if (this.micOn || this.active || !job || job.result === null) return;
    this.deliverBackground(job.result, this.options.clock.now());
  }

  private deliverBackground(result: string, now: number): void {
    this.background = null;
    const turn = this.newTurn(++this.turnSeq, 'line', new AbortController(), now);
    this.mark('background-delivered', turn.id);
    this.setState('thinking');
    void this.runLine(turn, result, true);
  }

  // ---- events ---------------------------------------------------------------------------------------------------------

  private setState(state: EngineState): void {
    if (state === this.stateValue) return;
    this.stateValue = state;
    this.emit({ type: 'state', state, at: this.options.clock.now() });
  }

  private mark(name: MarkName, turnId: number, detail?: MarkDetail, at = this.options.clock.now()): void {
    this.emit(detail ? { type: 'mark', name, at, turnId, detail } : { type: 'mark', name, at, turnId });
  }

  private emit(event: EngineEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
