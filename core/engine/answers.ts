/**
 * The answers to turns, whatever started them (an endpoint, a typed message, a greeting, a finished background task):
 * the answer to a user's words (the transcript, the echo checks, a tool route or the LLM, the speculative reply held
 * unspoken), fixed lines, the conversation history, the interrupted reply's heard words and the background job. The
 * active turn itself is the turn controller's (turn-controller.ts).
 */
import { FactMemory } from '../memory/fact-memory';
import { phraseCompleteness } from '../text/phrase-completeness';
import { isGarbledTranscript, isNonSpeechTranscript } from '../text/transcript-quality';
import { engineTunables as T } from '../tunables';
import { isEchoOfReplyEnd } from './backchannel';
import { BackgroundJob } from './background-job';
import { InterruptedReply } from './interrupted-reply';
import { LINES } from './lines';
import { ReplyRunner, lineSource, type ReplyOutcome } from './reply-runner';
import type { Speculation } from './speculation';
import { formatLocalDateTime } from './time-context';
import type { Turn } from './turn';
import type { ActiveTurn, TurnController } from './turn-controller';
import type { BackgroundTask, EngineOptions, HistoryMessage, Transcript, UserTurn } from './types';

export class Answers {
  readonly history: HistoryMessage[] = [];
  /** The last interrupted reply, until the player says how much of it was heard. */
  readonly heard: InterruptedReply;
  background: BackgroundJob | null = null;
  /** What the last reply that played to its end said: an utterance right after it may be its echo. */
  lastSpoken = '';
  /** The turn whose reply was spoken last: its audio is what an echo after it would match. */
  lastSpokenTurnId: string | null = null;

  constructor(
    private readonly options: EngineOptions,
    private readonly turns: TurnController,
    /** A turn ended (done, failed or stopped): the engine goes back to listening, or to idle with the mic off. */
    private readonly turnOver: () => void,
  ) {
    const { stages, clock } = options;
    this.heard = new InterruptedReply(this.history, stages.playedSentences?.bind(stages), (turnId, text) =>
      turns.emit({ type: 'caption', role: 'assistant', text, final: true, turnId, at: clock.now() }),
    );
  }

  /** "Forget everything": the history is emptied, and a reply still in flight is not recorded when it ends. */
  forget(): void {
    this.history.length = 0;
    this.heard.forget();
    const active = this.turns.active;
    if (active) active.recordAsAssistant = false;
  }

  buildTurn(turnId: string, text: string): UserTurn {
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

  /** The reply was cut (barge-in, stop): what was handed to TTS goes into the history and captions as interrupted. */
  cut(active: ActiveTurn): void {
    this.heard.cut(active.turn.id, active.reply?.spoken ?? '', active.recordAsAssistant, active.fromPage);
  }

  // ---- replies and lines ------------------------------------------------------------------------------------------

  newReply(turn: Turn, source: AsyncIterable<string>, signal: AbortSignal, held: boolean): ReplyRunner {
    const { clock } = this.options;
    const mine = () => this.turns.active?.turn === turn;
    return new ReplyRunner(
      source,
      this.options.stages.speak,
      turn.id,
      signal,
      clock,
      {
        stage: (stage, fields) => turn.stage(stage, fields),
        caption: (text, final) =>
          this.turns.emit({ type: 'caption', role: 'assistant', text, final, turnId: turn.id, at: clock.now() }),
        progress: () => {
          if (mine()) this.turns.lastProgressAt = clock.now();
        },
        queued: () => {
          if (mine()) turn.audioOutstanding = true;
        },
      },
      held,
    );
  }

  /** Speak a fixed line as this turn's reply (clarify, holding line, tool result). */
  async runLine(active: ActiveTurn, text: string, recordAsAssistant: boolean, fromPage = false): Promise<void> {
    active.recordAsAssistant = recordAsAssistant;
    active.fromPage = fromPage;
    active.reply = this.newReply(active.turn, lineSource(text), active.turn.signal, false);
    this.afterReply(active, await active.reply.done);
  }

  afterReply(active: ActiveTurn, outcome: ReplyOutcome): void {
    if (this.turns.active !== active || outcome === 'aborted') return;
    active.outcome = outcome;
    active.turn.generationComplete = true;
    active.turn.stage('audio-complete', {});
    this.options.stages.audioComplete?.(active.turn.id);
    if (!active.turn.audioOutstanding) this.finish(active);
  }

  /** The turn's reply was said to its end (or failed): it is recorded, and the turn ends. */
  finish(active: ActiveTurn): void {
    if (this.turns.active !== active) return;
    const spoken = active.reply?.spoken ?? '';
    if (spoken && active.recordAsAssistant)
      this.history.push({ role: 'assistant', text: spoken, ...(active.fromPage ? { fromPage: true as const } : {}) });
    if (spoken) {
      this.lastSpoken = spoken;
      this.lastSpokenTurnId = active.turn.id;
    }
    this.turns.end(active.outcome === 'failed' ? 'failed' : 'done', active);
    this.turnOver();
  }

  // ---- the answer to a user's turn ----------------------------------------------------------------------------------

  async answer(
    active: ActiveTurn,
    spec: Speculation | null,
    audio: Float32Array,
    typed?: Transcript,
    replaces: string | null = null,
    draftPromise: Promise<readonly number[] | undefined> = Promise.resolve(undefined),
  ): Promise<void> {
    const { turn } = active;
    const { turns } = this;
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
    if (turns.active !== active || turn.signal.aborted) return;
    turns.lastProgressAt = this.options.clock.now();
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
    turns.emit({ type: 'caption', role: 'user', text, final: true, turnId: turn.id, at, ...(replaces ? { replaces } : {}) });
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

  acceptable(transcript: Transcript): boolean {
    return transcript.confidence >= T.asrMinConfidence && !isGarbledTranscript(transcript.text);
  }

  /** Start the LLM early, held unspoken, when the text sounds like a finished, answerable request. */
  speculateReply(spec: Speculation, transcript: Transcript): void {
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
    const source = this.options.stages.respond(userTurn, replyController.signal);
    spec.reply = this.newReply(spec.turn, source, replyController.signal, true);
  }

  /** The utterance was the reply's own echo: no turn, and a speculative reply already started for it is dropped unheard. */
  dropOwnEcho(active: ActiveTurn, spec: Speculation | null): void {
    spec?.replyController?.abort();
    const likeness = active.echoLikeness;
    active.turn.stage('discarded', {
      reason: 'own-echo',
      ...(likeness != null ? { likeness: Math.round(likeness * 100) / 100 } : {}),
    });
    this.finish(active);
  }

  // ---- background work ----------------------------------------------------------------------------------------------

  startBackground(task: BackgroundTask, turn: Turn): void {
    turn.stage('background-start', {});
    const job: BackgroundJob = new BackgroundJob(
      task,
      () => {
        if (this.background !== job) return;
        turn.stage('background-done', {});
        this.deliverWithoutMic();
      },
      () => {
        if (this.background === job) this.background = null;
      },
    );
    this.background = job;
  }

  /** With the mic off (typed turns) no frames arrive to find a silence: speak the result once nothing else is. */
  deliverWithoutMic(): void {
    const result = this.background?.result ?? null;
    if (this.turns.micOn || this.turns.active || result === null) return;
    this.deliverBackground(result, this.options.clock.now());
  }

  deliverBackground(result: string, now: number): void {
    const fromPage = this.background?.fromPage ?? false;
    this.background = null;
    const active = this.turns.begin(this.turns.createTurn('thinking'), now);
    active.turn.stage('background-delivered', {});
    this.turns.setState('thinking');
    void this.runLine(active, result, true, fromPage);
  }
}
