/**
 * The active turn and its state machine: at most one turn is answered at a time; it is `thinking`, then `speaking`,
 * `held` while speech over it is being decided, and it ends through `end(reason)`, the one path by which any turn
 * ends (done, failed, or cancelled for any reason). The controller also numbers the turns, keeps the engine's state
 * and the watchdog's progress clock, and carries both event streams: the diagnostic trace (state, captions, the
 * turns' stage events) and the lifecycle (turn-lifecycle.ts).
 */
import type { ReplyOutcome, ReplyRunner } from './reply-runner';
import { Turn, turnEvent, turnIdFor, type StageFields } from './turn';
import { Listeners, type LifecycleEvent, type LifecycleListener, type TurnEndReason, type TurnState } from './turn-lifecycle';
import type { Clock, EngineEvent, EngineListener, EngineState, TurnStage } from './types';

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

export class TurnController {
  private seq = 0;
  private current: ActiveTurn | null = null;
  private heldNow = false;
  private stateValue: EngineState = 'idle';
  private readonly trace = new Listeners<EngineEvent>();
  private readonly lifecycle = new Listeners<LifecycleEvent>();
  /** When a stage of the active turn last made progress: the watchdog's clock. */
  lastProgressAt = 0;
  /** Hands-free on: the mic feeds frames. Typed turns work with it off, and the engine rests in 'idle' after them. */
  micOn = false;

  constructor(
    private readonly clock: Clock,
    private readonly turnIdPrefix: string | undefined,
    /** A turn begins: whatever judged speech over the last one starts afresh. */
    private readonly onBegin: () => void,
  ) {}

  get active(): ActiveTurn | null {
    return this.current;
  }

  /** The engine's state, as the UI shows it (a held reply is still `speaking` there). */
  get state(): EngineState {
    return this.stateValue;
  }

  /** The active turn's state; null when there is none. */
  get turnState(): TurnState | null {
    const active = this.current;
    if (!active) return null;
    if (this.heldNow) return 'held';
    return active.turn.phase === 'speaking' ? 'speaking' : 'thinking';
  }

  /** A new turn with the next id; its stage events go to the trace. */
  createTurn(phase: 'listening' | 'thinking'): Turn {
    return new Turn(turnIdFor(++this.seq, this.turnIdPrefix), phase, this.clock, (event) => this.emit(event));
  }

  /** The id the next turn will have: speech that may become a turn is stamped with it before the turn exists. */
  upcomingId(): string {
    return turnIdFor(this.seq + 1, this.turnIdPrefix);
  }

  /** `turn` becomes the active turn (the caller ended the one before). */
  begin(turn: Turn, now: number): ActiveTurn {
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
    this.current = active;
    this.heldNow = false;
    this.lastProgressAt = now;
    this.onBegin();
    this.lifecycle.emit({ type: 'turn-started', turnId: turn.id, at: now });
    return active;
  }

  /** The player started the active turn's reply. False when it was already speaking (or could not be). */
  speaking(active: ActiveTurn): boolean {
    if (!active.turn.advance('speaking')) return false;
    this.lifecycle.emit({ type: 'turn-speaking', turnId: active.turn.id, at: this.clock.now() });
    return true;
  }

  /** Speech over the reply may be an interruption: the reply is held (its audio paused) until that is decided. */
  hold(active: ActiveTurn): void {
    if (this.current !== active || this.heldNow || active.turn.phase !== 'speaking') return;
    this.heldNow = true;
    this.lifecycle.emit({ type: 'turn-held', turnId: active.turn.id, at: this.clock.now() });
  }

  /** The speech over the held reply was not an interruption: it goes on. */
  resume(active: ActiveTurn): void {
    if (this.current !== active || !this.heldNow) return;
    this.heldNow = false;
    this.lifecycle.emit({ type: 'turn-resumed', turnId: active.turn.id, at: this.clock.now() });
  }

  /**
   * Ends the active turn, whatever its state: the one cleanup path. A cancel aborts the turn's signal (which stops its
   * reply: LLM, TTS and playback observe it) and announces `interrupted`; a finished turn announces `done` or
   * `failed`. The hold and the resume-grace wait are cleared, and the turn is no longer active. Returns false, doing
   * nothing, when `active` is given and is not the active turn, or when there is none: a second call is a no-op.
   */
  end(reason: TurnEndReason, active: ActiveTurn | null = this.current): boolean {
    if (!active || active !== this.current) return false;
    const from = this.turnState!;
    if (reason === 'done' || reason === 'failed') active.turn.finish(reason, {});
    else active.turn.cancel(reason);
    this.current = null;
    this.heldNow = false;
    active.pendingResume = undefined;
    this.lifecycle.emit({ type: 'turn-ended', turnId: active.turn.id, at: this.clock.now(), reason, from });
    return true;
  }

  // ---- events -------------------------------------------------------------------------------------------------------

  setState(state: EngineState): void {
    if (state === this.stateValue) return;
    this.stateValue = state;
    this.emit({ type: 'state', state, at: this.clock.now() });
  }

  /** The diagnostic trace: state, captions and every stage of every turn. */
  on(listener: EngineListener): () => void {
    return this.trace.add(listener);
  }

  /** The active turn's lifecycle (turn-lifecycle.ts). */
  onLifecycle(listener: LifecycleListener): () => void {
    return this.lifecycle.add(listener);
  }

  emit(event: EngineEvent): void {
    this.trace.emit(event);
  }

  /** A stage stamped with a turn id before that turn exists (speech that may become the next turn). */
  stageOf<S extends TurnStage>(turnId: string, stage: S, fields: StageFields<S>, at = this.clock.now()): void {
    this.emit(turnEvent(stage, turnId, at, fields));
  }
}
