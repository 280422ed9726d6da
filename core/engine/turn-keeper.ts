/**
 * What every turn of the engine has in common, whatever started it (an endpoint, a typed message, a greeting, a
 * finished background task): the active turn and its reply, the conversation history, the background job, the state
 * and the event stream. `DuplexEngine` adds the listening policy on top (core/engine/duplex-engine.ts).
 */
import { FactMemory } from '../memory/fact-memory';
import { engineTunables as T } from '../tunables';
import { BackgroundJob } from './background-job';
import { JointRun, TrackGate } from './barge-tracks';
import { ReplyRunner, lineSource, type ReplyOutcome } from './reply-runner';
import { InterruptedReply } from './interrupted-reply';
import { formatLocalDateTime } from './time-context';
import { Turn, turnEvent, turnIdFor, type StageFields } from './turn';
import type {
  BackgroundTask,
  HistoryMessage,
  Clock,
  EngineEvent,
  EngineListener,
  EngineStages,
  EngineState,
  TurnStage,
  UserTurn,
} from './types';

export interface EngineOptions {
  clock: Clock;
  stages: EngineStages;
  memory?: FactMemory;
  timeZone?: string;
  /** Start the ASR (and LLM) at the tentative endpoint. On by default; benches turn it off to compare. */
  speculate?: boolean;
  /**
   * Put before every turn id. Each engine numbers its turns from 1, and the side panel remembers stopped turns by id
   * across offscreen documents: the document gives its engine a prefix of its own, so a new document's turns never
   * carry the ids of the last one's (whose stopped audio the panel drops).
   */
  turnIdPrefix?: string;
}

/** What the engine keeps about the turn it is answering, besides the turn itself. */
export interface ActiveTurn {
  turn: Turn;
  endpointAt: number;
  /** The committed utterance, kept for a continuation-merge; null for typed turns and lines. */
  saved: { frames: Float32Array[]; speechStart: number; voiced: number } | null;
  gap: Float32Array[];
  reply: ReplyRunner | null;
  outcome: ReplyOutcome | null;
  historyIndex: number | null;
  /** Pushed to history as the assistant's words when the line completes. */
  recordAsAssistant: boolean;
  /** The line is written from a web page: its history entry is marked `fromPage`. */
  fromPage?: boolean;
  /** The utterance opened while the last reply's echo may still have been arriving (docs/echo.md). */
  echoSuspect?: boolean;
  /** For an echo suspect: how much it followed the reply's envelope at the echo's delay (EchoPath.likeness). */
  echoLikeness?: number | null;
  /** The reply's own audio was found in the utterance from its start to its end (core/engine/echo-match.ts). */
  echoMatched?: boolean;
  /** When the player said its first audio started (engine clock): where it is in the reply (burst-echo.ts). */
  firstAudioAt?: number;
  /** The last burst over the reply matched against its audio (burst-echo.ts): the score, for the trace. */
  burstEchoScore?: number;
  /** Speech began while the reply's audio was queued but not reported started: when it was heard, and its onset. */
  pendingResume?: { heardAt: number; onsetAt: number };
}

export abstract class TurnKeeper {
  private stateValue: EngineState = 'idle';
  private readonly listeners = new Set<EngineListener>();
  protected readonly barge = new TrackGate(false, { behindCanceller: true });
  /** The unprocessed track's own gate, where it also opens a barge-in (`bargeFromUnprocessed`; barge-tracks.ts). */
  protected readonly rawGate = new TrackGate(true);
  /** A run both tracks' gates heard (barge-tracks.ts). */
  protected readonly jointRun = new JointRun();
  protected readonly history: HistoryMessage[] = [];
  /** The last interrupted reply, until the player says how much of it was heard. */
  protected readonly heard: InterruptedReply;
  private turnSeq = 0;
  protected active: ActiveTurn | null = null;
  protected background: BackgroundJob | null = null;
  protected lastProgressAt = 0;
  protected mergesLeft = 1;
  /** What the last reply that played to its end said: an utterance right after it may be its echo. */
  protected lastSpoken = '';
  /** The turn whose reply was spoken last: its audio is what an echo after it would match. */
  protected lastSpokenTurnId: string | null = null;
  /** Hands-free on: the mic feeds frames. Typed turns work with it off, and the engine rests in 'idle' after them. */
  protected micOn = false;

  constructor(protected readonly options: EngineOptions) {
    const { stages, clock } = options;
    this.heard = new InterruptedReply(this.history, stages.playedSentences?.bind(stages), (turnId, text) =>
      this.emit({ type: 'caption', role: 'assistant', text, final: true, turnId, at: clock.now() }),
    );
  }

  get state(): EngineState {
    return this.stateValue;
  }

  /** The conversation so far (user and assistant messages); the offscreen document persists or clears it. */
  get messages(): readonly HistoryMessage[] {
    return this.history;
  }

  /**
   * "Forget everything": the conversation kept for the model is emptied, and a reply still in flight is not
   * recorded when it ends, so nothing said before the forget comes back into a later prompt.
   */
  forgetConversation(): void {
    this.history.length = 0;
    this.heard.forget();
    if (this.active) this.active.recordAsAssistant = false;
  }

  on(listener: EngineListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected buildTurn(turnId: string, text: string): UserTurn {
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

  /** A new turn with the next id; its stage events go to the engine's listeners. */
  protected createTurn(phase: 'listening' | 'thinking'): Turn {
    return new Turn(turnIdFor(++this.turnSeq, this.options.turnIdPrefix), phase, this.options.clock, (event) => this.emit(event));
  }

  /** The id the next turn will have: speech that may become a turn is stamped with it before the turn exists. */
  protected upcomingId(): string {
    return turnIdFor(this.turnSeq + 1, this.options.turnIdPrefix);
  }

  protected newTurn(turn: Turn, now: number): ActiveTurn {
    const active: ActiveTurn = {
      turn,
      endpointAt: now,
      saved: null,
      gap: [],
      reply: null,
      outcome: null,
      historyIndex: null,
      recordAsAssistant: true,
    };
    this.active = active;
    this.lastProgressAt = now;
    this.barge.reset();
    this.rawGate.reset();
    this.jointRun.reset();
    return active;
  }

  protected newReply(turn: Turn, source: AsyncIterable<string>, signal: AbortSignal, held: boolean): ReplyRunner {
    const mine = () => this.active?.turn === turn;
    return new ReplyRunner(
      source,
      this.options.stages.speak,
      turn.id,
      signal,
      this.options.clock,
      {
        stage: (stage, fields) => turn.stage(stage, fields),
        caption: (text, final) =>
          this.emit({ type: 'caption', role: 'assistant', text, final, turnId: turn.id, at: this.options.clock.now() }),
        progress: () => {
          if (mine()) this.lastProgressAt = this.options.clock.now();
        },
        queued: () => {
          if (mine()) turn.audioOutstanding = true;
        },
      },
      held,
    );
  }

  /** Speak a fixed line as this turn's reply (clarify, holding line, tool result). */
  protected async runLine(active: ActiveTurn, text: string, recordAsAssistant: boolean, fromPage = false): Promise<void> {
    active.recordAsAssistant = recordAsAssistant;
    active.fromPage = fromPage;
    active.reply = this.newReply(active.turn, lineSource(text), active.turn.signal, false);
    this.afterReply(active, await active.reply.done);
  }

  protected afterReply(active: ActiveTurn, outcome: ReplyOutcome): void {
    if (this.active !== active || outcome === 'aborted') return;
    active.outcome = outcome;
    active.turn.generationComplete = true;
    active.turn.stage('audio-complete', {});
    this.options.stages.audioComplete?.(active.turn.id);
    if (!active.turn.audioOutstanding) this.finish(active);
  }

  protected finish(active: ActiveTurn): void {
    if (this.active !== active) return;
    const spoken = active.reply?.spoken ?? '';
    if (spoken && active.recordAsAssistant)
      this.history.push({ role: 'assistant', text: spoken, ...(active.fromPage ? { fromPage: true as const } : {}) });
    if (spoken) {
      this.lastSpoken = spoken;
      this.lastSpokenTurnId = active.turn.id;
    }
    active.turn.finish(active.outcome === 'failed' ? 'failed' : 'done', {});
    this.afterTurn();
  }

  /** The turn is over (done, failed or stopped): back to listening, or idle with the mic off. */
  protected afterTurn(): void {
    this.active = null;
    this.mergesLeft = 1;
    this.setState(this.micOn ? 'listening' : 'idle');
    this.deliverWithoutMic();
  }

  // ---- background work ----------------------------------------------------------------------------------------------

  protected startBackground(task: BackgroundTask, turn: Turn): void {
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
  protected deliverWithoutMic(): void {
    const result = this.background?.result ?? null;
    if (this.micOn || this.active || result === null) return;
    this.deliverBackground(result, this.options.clock.now());
  }

  protected deliverBackground(result: string, now: number): void {
    const fromPage = this.background?.fromPage ?? false;
    this.background = null;
    const active = this.newTurn(this.createTurn('thinking'), now);
    active.turn.stage('background-delivered', {});
    this.setState('thinking');
    void this.runLine(active, result, true, fromPage);
  }

  // ---- events ---------------------------------------------------------------------------------------------------------

  protected setState(state: EngineState): void {
    if (state === this.stateValue) return;
    this.stateValue = state;
    this.emit({ type: 'state', state, at: this.options.clock.now() });
  }

  /** A stage stamped with a turn id before that turn exists (speech that may become the next turn). */
  protected stageOf<S extends TurnStage>(turnId: string, stage: S, fields: StageFields<S>, at = this.options.clock.now()): void {
    this.emit(turnEvent(stage, turnId, at, fields));
  }

  protected emit(event: EngineEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}
