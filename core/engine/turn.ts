/**
 * One reply's owner, from the moment the engine commits to answering (or speculates on an answer) until it is done,
 * interrupted or failed. Every stage of the turn (ASR, LLM, TTS, playback) observes `signal`; `cancel(reason)` is the
 * only way a turn is interrupted, and it announces the interruption exactly once. The phase is one value.
 */
import type { Clock, TurnEvent, TurnEventOf, TurnStage } from './types';

/** The typed fields of a stage, without the envelope every turn event has. */
export type StageFields<S extends TurnStage> = Omit<TurnEventOf<S>, 'type' | 'stage' | 'turnId' | 'at'>;

/** Builds one turn event; the only place the union is assembled from a stage name and its fields. */
export function turnEvent<S extends TurnStage>(stage: S, turnId: string, at: number, fields: StageFields<S>): TurnEvent {
  return { type: 'turn', stage, turnId, at, ...fields } as unknown as TurnEvent;
}

/** listening (speculating before the endpoint) → thinking → speaking → one of the three terminal phases. */
export const TURN_PHASES = ['listening', 'thinking', 'speaking', 'done', 'interrupted', 'failed'] as const;
export type TurnPhase = (typeof TURN_PHASES)[number];

/** Why a turn ended early; carried by the AbortSignal's `reason` so every stage can tell. */
export const CANCEL_REASONS = [
  /** The user spoke over the reply. */
  'barge-in',
  /** The user pressed Stop or Escape. */
  'stop',
  /** The user resumed speaking before the reply was heard: the turn is merged or started over. */
  'resumed',
  /** A typed message, a character's greeting or a delivered result took its place. */
  'superseded',
  /** No stage made progress for too long. */
  'watchdog',
  /** The microphone was turned off. */
  'mic-off',
] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];

export class TurnCancelled extends Error {
  override readonly name = 'AbortError';
  constructor(readonly reason: CancelReason) {
    super(`turn cancelled: ${reason}`);
  }
}

const TERMINAL: ReadonlySet<TurnPhase> = new Set(['done', 'interrupted', 'failed']);

export class Turn {
  private phaseValue: TurnPhase;
  private readonly controller = new AbortController();
  /** Every sentence was handed to TTS (the reply will say nothing more). */
  generationComplete = false;
  /** Audio was queued or is playing and playback has not reported its end yet. */
  audioOutstanding = false;

  constructor(
    readonly id: string,
    phase: 'listening' | 'thinking',
    private readonly clock: Clock,
    private readonly emit: (event: TurnEvent) => void,
  ) {
    this.phaseValue = phase;
  }

  get phase(): TurnPhase {
    return this.phaseValue;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get ended(): boolean {
    return TERMINAL.has(this.phaseValue);
  }

  /** Moves forward (listening → thinking → speaking); never back, never out of a terminal phase. */
  advance(phase: 'thinking' | 'speaking'): boolean {
    const from = TURN_PHASES.indexOf(this.phaseValue);
    if (this.ended || TURN_PHASES.indexOf(phase) <= from) return false;
    this.phaseValue = phase;
    return true;
  }

  /** Interrupts every stage of the turn. Returns false (and announces nothing) when it had already ended. */
  cancel(reason: CancelReason, at = this.clock.now()): boolean {
    if (this.ended) return false;
    this.phaseValue = 'interrupted';
    this.controller.abort(new TurnCancelled(reason));
    this.stage('interrupted', { reason }, at);
    return true;
  }

  /** The turn ran to its end: `done`, or `failed` when its reply could not be produced. */
  finish(outcome: 'done' | 'failed', fields: StageFields<'done'>): void {
    if (this.ended) return;
    this.phaseValue = outcome;
    if (outcome === 'failed') this.stage('failed', {});
    else this.stage('done', fields);
  }

  /** Announces a stage of this turn, with its typed fields. */
  stage<S extends TurnStage>(stage: S, fields: StageFields<S>, at = this.clock.now()): void {
    this.emit(turnEvent(stage, this.id, at, fields));
  }
}

/**
 * Turn ids are strings everywhere they travel (timeline, captions, audio channel); the engine numbers them in order,
 * after its prefix (EngineOptions.turnIdPrefix).
 */
export function turnIdFor(seq: number, prefix = ''): string {
  return `${prefix}t${seq}`;
}
