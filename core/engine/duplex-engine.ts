/**
 * The full-duplex conversation policy. Driven by mic frames (one tick per 32 ms VAD frame) and playback events; it
 * calls the injected stages and emits state, caption and timeline events. No timers of its own: the frame stream is
 * the clock tick, and `clock.now()` stamps events (a manual clock in tests, performance.now() in the browser).
 *
 * Listening: onset → utterance → tentative endpoint (speculative ASR, and LLM if the text sounds complete, held
 * unspoken) → endpoint after an adaptive silence → answer. Resuming before the endpoint discards the speculation;
 * resuming after it but before any reply audio merges both halves into one turn. While the reply plays, a barge-in
 * (VAD and energy over the echo estimate) cancels the turn: ASR, LLM, TTS and playback all observe its one signal.
 * Each reply is owned by a `Turn` (core/engine/turn.ts): one phase, one `cancel(reason)`, typed stage events. What
 * the user does while a turn is active, and the reply's own echo, are core/engine/over-the-reply.ts.
 */
import { AsrDrafts } from './asr-drafts';
import { phraseCompleteness } from '../text/phrase-completeness';
import { isGarbledTranscript, isNonSpeechTranscript } from '../text/transcript-quality';
import { engineTunables as T } from '../tunables';
import { rms } from './audio-frames';
import { LINES } from './lines';
import type { CancelReason } from './turn';
import type { ActiveTurn } from './turn-keeper';
import { unprocessed } from './barge-tracks';
import { OverTheReply } from './over-the-reply';
import type { MicFrame, Transcript } from './types';
import { EndOfTurnCheck, endpointWindow } from './end-of-turn-check';
import { newSpeculation, speculativeAsrQuietMs, type Speculation } from './speculation';
import { isEchoOfReplyEnd } from './backchannel';
import { likenessFields } from './echo-path';

export class DuplexEngine extends OverTheReply {
  private readonly drafts = new AsrDrafts(
    (pcm, signal, draft) => this.options.stages.transcribe(pcm, signal, draft),
    () => this.options.stages.draftsAffordable?.() ?? false,
    () => this.options.clock.now(),
    (report) => this.stageOf(this.upcomingId(), 'asr-draft', report),
  );
  private speculation: Speculation | null = null;
  /** The words of a speculation dropped as stale inside the same pause (see `listening`). */
  private staleHint: string | null = null;
  private readonly endOfTurn = new EndOfTurnCheck(this.options.stages.endOfTurn?.bind(this.options.stages));

  start(): void {
    this.micOn = true;
    if (this.state === 'idle') this.setState('listening');
  }

  /**
   * A typed message: it interrupts whatever is in flight (like barge-in) and is answered like a spoken turn, without
   * ASR and its confidence gate.
   */
  submitText(text: string): void {
    const clean = text.trim();
    if (!clean) return;
    this.supersede();
    const turn = this.newTurn(this.createTurn('thinking'), this.options.clock.now());
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
    this.supersede();
    const turn = this.newTurn(this.createTurn('thinking'), this.options.clock.now());
    this.setState('thinking');
    void this.runLine(turn, clean, true);
  }

  /** A typed turn or a line takes over: whatever was in flight is cancelled. */
  private supersede(): void {
    this.mergedFrom = null;
    this.discardSpeculation(false);
    this.active?.turn.cancel('superseded');
    this.active = null;
    this.resetUtterance();
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
      this.resetUtterance();
      this.setState('idle');
    }
  }

  /** The user pressed stop: generation, TTS and playback of the current reply end together. */
  interrupt(): void {
    this.discardSpeculation(false);
    const active = this.active;
    if (!active) return;
    active.turn.cancel('stop');
    this.heard.cut(active.turn.id, active.reply?.spoken ?? '', active.recordAsAssistant, active.fromPage);
    this.afterTurn();
  }

  /** Mic off: cancel everything in flight. */
  stop(): void {
    this.micOn = false;
    this.mergedFrom = null;
    this.cancelSpeculation('mic-off');
    this.active?.turn.cancel('mic-off');
    this.active = null;
    this.background?.abort();
    this.background = null;
    this.resetUtterance();
    this.setState('idle');
  }

  /**
   * A reply is playing, so speech over it is weighed: only then does the engine read the unprocessed track's
   * P(speech), and the feed runs that second VAD only then (docs/echo.md, "Both tracks gate a barge-in").
   */
  get listensOverReply(): boolean {
    return this.active?.turn.phase === 'speaking';
  }

  onFrame(frame: MicFrame): void {
    if (this.state === 'idle') return;
    const now = this.options.clock.now();
    const level = rms(frame.pcm);
    this.frameLagMs = frame.capturedAt === undefined ? 0 : Math.round(now - frame.capturedAt);
    this.frameAt = frame.capturedAt ?? now;
    const active = this.active;
    if (active) {
      if (now - this.lastProgressAt > T.stallMs) return this.watchdog(active, now);
      if (active.turn.phase === 'speaking') return this.duringPlayback(active, now, frame, level);
      return this.beforeAudio(active, now, frame, level);
    }
    this.listening(now, frame);
  }

  // ---- listening ------------------------------------------------------------------------------------------------

  private listening(now: number, frame: MicFrame): void {
    this.drafts.onFrame();
    const echoLevel = unprocessed(frame)?.rms ?? rms(frame.pcm);
    if (now - this.lastAudibleAt < T.echoMaxDelayMs + T.echoDecayMs) this.barge.recordListeningMic(this.frameAt, echoLevel);
    // The tail of our own playback is still in the room: keep it as pre-roll but do not open an utterance on it.
    if (!this.tracker.inSpeech && now - this.lastAudibleAt < T.echoTailMs) return this.tracker.observe(frame.pcm);
    // The reply's echo may still be arriving (a longer path, the room's reverb): only a voice above it opens an
    // utterance; above the unprocessed track's echo too, which the canceller lets through once the reply stops.
    const opening = !this.tracker.inSpeech && T.echoTailFromUnprocessed > 0;
    const released = opening ? this.rawGate.echo.expected(this.frameAt) : 0;
    if (!this.tracker.inSpeech && this.barge.heldByEcho(this.frameAt, now - this.lastAudibleAt, echoLevel, released)) {
      this.tracker.observe(frame.pcm);
      return this.maybeDeliverBackground(now);
    }
    const event = this.tracker.onFrame(now, frame.pcm, frame.prob);
    if (event.kind === 'onset') {
      this.onsetAfterAudibleMs = now - this.lastAudibleAt;
      const trace = this.barge.onsetTrace(this.frameLagMs, this.onsetAfterAudibleMs, echoLevel, released);
      this.stageOf(this.upcomingId(), 'speech-start', trace, event.at);
    }
    if (event.kind === 'resume' || event.kind === 'onset') this.staleHint = null;
    if (event.kind === 'resume' && this.speculation) this.discardSpeculation();
    if (!this.tracker.inSpeech) return this.maybeDeliverBackground(now);

    if (this.tracker.speechMs(now) >= T.maxUtteranceMs) return this.commit(now, true);
    const silence = this.tracker.silenceMs(now);
    if (silence <= 0) return this.drafts.onSpeech(this.tracker.voicedFrames, () => this.tracker.audio());
    const real = this.tracker.voicedFrames >= T.minVoicedFrames && this.tracker.speechMs(now) >= T.minSpeechMs;
    if (real && silence >= T.turnCheckMs) this.checkEndOfTurn();
    // Voiced audio after the speculative ASR's audio ended: its transcript is stale (a low-confidence resume that the
    // tracker's hysteresis does not call a resume). Speculation restarts once it is quiet again.
    if (this.speculation && this.tracker.voicedFrames > this.speculation.voicedFrames) {
      // Its words still say how the pause sounds (trailing "and…") until the new transcript arrives.
      this.staleHint = this.speculation.transcript?.text ?? this.staleHint;
      this.discardSpeculation();
    }
    const quiet = now - this.tracker.lastVoiceAt;
    if (real && !this.speculation && this.options.speculate !== false && this.mayStartSpeculation(quiet)) {
      this.startSpeculation(now);
    }
    const spec = this.speculation;
    if (spec?.transcript && !spec.triedReply && quiet >= T.speculativeReplyMs) this.speculateReply(spec, spec.transcript);
    if (silence < this.endpointWindow()) return;
    if (real) return this.commit(now, false);
    this.stageOf(this.upcomingId(), 'discarded', { reason: 'noise', voicedFrames: this.tracker.voicedFrames });
    this.discardSpeculation(false);
    this.resetUtterance();
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
    const text = this.speculation?.transcript?.text ?? this.staleHint ?? undefined;
    return endpointWindow(this.endOfTurn.answerFor(this.tracker.silenceStart), text);
  }

  /** Asks the end-of-turn model once per pause; a "finished" answer ends the turn as soon as it arrives. */
  private checkEndOfTurn(): void {
    const pauseStart = this.tracker.silenceStart;
    this.endOfTurn.ask(
      () => this.tracker.audio(),
      pauseStart,
      () => this.tracker.silenceStart === pauseStart && !this.active,
      (probability) => {
        const at = this.options.clock.now();
        const turnId = this.speculation?.turn.id ?? this.upcomingId();
        this.stageOf(turnId, 'turn-check', { probability, silenceMs: at - pauseStart! }, at);
        if (probability >= T.turnCompleteProbability && this.state !== 'idle') this.commit(at, false);
      },
    );
  }

  /** The utterance so far is dropped: its audio and its ASR draft. */
  protected resetUtterance(): void {
    this.tracker.reset();
    this.drafts.reset();
  }

  private startSpeculation(now: number): void {
    const turn = this.createTurn('listening');
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
        return this.options.stages.transcribe(audio, turn.signal, draft);
      })
      .then(
        (transcript) => {
          if (turn.signal.aborted || !transcript) return null;
          this.drafts.learn(transcript, utterance);
          spec.transcript = transcript;
          turn.stage('transcript', { speculative: true, draftAccepted: transcript.draftAccepted ?? 0 });
          const quiet = this.options.clock.now() - this.tracker.lastVoiceAt;
          if (this.speculation === spec && quiet >= T.speculativeReplyMs) this.speculateReply(spec, transcript);
          return transcript;
        },
        () => null,
      );
    this.speculation = spec;
  }

  /** Start the LLM early, held unspoken, when the text sounds like a finished, answerable request. */
  private speculateReply(spec: Speculation, transcript: Transcript): void {
    spec.triedReply = true;
    const text = transcript.text.trim();
    if (!this.acceptable(transcript) || phraseCompleteness(text) !== 'complete') return;
    const userTurn = this.buildTurn(spec.turn.id, text);
    if (!this.background && this.options.stages.route?.(userTurn)) return; // tool turns start at the endpoint
    spec.turn.stage('llm-start', { speculative: true });
    // Its own controller, tied to the turn's: a tool route at the endpoint can drop it without cancelling the turn.
    const replyController = new AbortController();
    spec.turn.signal.addEventListener('abort', () => replyController.abort(), { once: true });
    spec.replyText = text;
    spec.replyController = replyController;
    spec.reply = this.newReply(
      spec.turn,
      this.options.stages.respond(userTurn, replyController.signal),
      replyController.signal,
      true,
    );
  }

  /** The user resumed before the endpoint (or something else took over): the speculative turn is dropped unheard. */
  private discardSpeculation(announce = true): void {
    const spec = this.speculation;
    if (!spec) return;
    if (announce) spec.turn.stage('speculation-discarded', {});
    this.cancelSpeculation('resumed');
  }

  private cancelSpeculation(reason: CancelReason): void {
    this.speculation?.turn.cancel(reason);
    this.speculation = null;
  }

  private commit(now: number, forced: boolean): void {
    const endOfSpeech = this.tracker.silenceStart ?? now;
    const spec = this.speculation;
    this.speculation = null;
    const turn = spec?.turn ?? this.createTurn('thinking');
    turn.advance('thinking');
    turn.stage('end-of-speech', {}, endOfSpeech);
    const echoSuspect = this.onsetAfterAudibleMs < T.echoMaxDelayMs + T.echoDecayMs;
    // Capture times of the utterance (the engine's clock runs frameLagMs behind the microphone's).
    const lag = this.frameLagMs;
    const echo = echoSuspect ? this.barge.echoLikeness(this.tracker.speechStart - lag, endOfSpeech - lag) : null;
    const likeness = echo?.r ?? null;
    const audio = this.tracker.audio();
    const verdict = echoSuspect ? this.replyEcho(audio, now - endOfSpeech) : null;
    const matched = verdict ? { echoMatchHead: Math.round(verdict.head), echoMatchOverrunMs: verdict.overrunMs } : {};
    turn.stage('endpoint', { forced, silenceMs: now - endOfSpeech, ...likenessFields(echo), ...matched }, now);
    const saved = { frames: this.tracker.takeFrames(), speechStart: this.tracker.speechStart, voiced: this.tracker.voicedFrames };
    const draft = this.drafts.take();
    this.tracker.reset();
    const active = this.newTurn(turn, now);
    active.saved = saved;
    active.echoSuspect = echoSuspect;
    active.echoLikeness = likeness;
    active.echoMatched = verdict?.own ?? false;
    this.onsetAfterAudibleMs = Infinity;
    const replaces = this.mergedFrom;
    this.mergedFrom = null;
    this.setState('thinking');
    void this.answer(active, spec, audio, undefined, replaces, draft);
  }

  private async answer(
    active: ActiveTurn,
    spec: Speculation | null,
    audio: Float32Array,
    typed?: Transcript,
    replaces: string | null = null,
    draftPromise: Promise<readonly number[] | undefined> = Promise.resolve(undefined),
  ): Promise<void> {
    const { turn } = active;
    // It follows the reply's own envelope at the echo's delay: the reply's echo, whatever a recogniser would hear in it.
    if (!typed && (active.echoLikeness ?? -1) >= T.echoTailMinLikeness) return this.dropOwnEcho(active, spec);
    // The reply's own audio, found in the utterance from its start to its end.
    if (!typed && active.echoMatched) return this.dropOwnEcho(active, spec);
    let transcript: Transcript | null = typed ?? spec?.transcript ?? null;
    if (!transcript && spec) transcript = await spec.transcriptPromise;
    if (!transcript && !turn.signal.aborted) {
      const draft = await draftPromise;
      turn.stage('asr-start', { speculative: false, draftTokens: draft?.length ?? 0 });
      transcript = await this.options.stages.transcribe(audio, turn.signal, draft).catch(() => null);
      if (transcript) turn.stage('transcript', { speculative: false, draftAccepted: transcript.draftAccepted ?? 0 });
    }
    if (this.active !== active || turn.signal.aborted) return;
    this.lastProgressAt = this.options.clock.now();
    const text = transcript?.text.trim() ?? '';
    if (!transcript || isNonSpeechTranscript(text)) {
      turn.stage('discarded', { reason: 'empty' });
      return this.finish(active);
    }
    if (!typed && active.echoSuspect && isEchoOfReplyEnd(text, this.lastSpoken)) return this.dropOwnEcho(active, spec);
    if (!typed && !this.acceptable(transcript)) {
      turn.stage('clarify', { confidence: transcript.confidence });
      return this.runLine(active, LINES.clarify, false);
    }
    const at = this.options.clock.now();
    this.emit({ type: 'caption', role: 'user', text, final: true, turnId: turn.id, at, ...(replaces ? { replaces } : {}) });
    this.options.memory?.observe(text, this.options.clock.now());
    const userTurn = this.buildTurn(turn.id, text);
    active.historyIndex = this.history.push({ role: 'user', text }) - 1;
    const task = this.background ? null : (this.options.stages.route?.(userTurn) ?? null);
    if (task) {
      spec?.replyController?.abort();
      this.startBackground(task, turn);
      turn.stage('holding-line', {});
      return this.runLine(active, task.holdingLine, true);
    }
    let reply = spec?.reply && spec.replyText === text ? spec.reply : null;
    if (!reply) spec?.replyController?.abort();
    if (reply) {
      reply.release();
    } else {
      turn.stage('llm-start', { speculative: false });
      reply = this.newReply(turn, this.options.stages.respond(userTurn, turn.signal), turn.signal, false);
    }
    active.reply = reply;
    this.afterReply(active, await reply.done);
  }

  private acceptable(transcript: Transcript): boolean {
    return transcript.confidence >= T.asrMinConfidence && !isGarbledTranscript(transcript.text);
  }

  private watchdog(active: ActiveTurn, now: number): void {
    active.turn.stage('watchdog', { stalledMs: now - this.lastProgressAt });
    active.turn.cancel('watchdog');
    this.active = null;
    this.resetUtterance();
    this.setState('listening');
  }

  /** A finished task is spoken at the next silence, when nothing else is said. */
  private maybeDeliverBackground(now: number): void {
    const result = this.background?.result ?? null;
    if (result === null || this.speculation) return;
    if (now - this.tracker.lastVoiceAt < T.deliverAfterSilenceMs || now - this.lastAudibleAt < T.deliverAfterSilenceMs) return;
    this.deliverBackground(result, now);
  }
}
