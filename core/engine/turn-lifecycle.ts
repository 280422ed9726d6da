/**
 * The active turn's lifecycle as its own typed stream: started, speaking, held, resumed, ended with its reason. It is
 * what a subscriber that follows the reply (pause the audio while it is held, show the turn's end) listens to; the
 * diagnostic trace (the turn's stage events, gate-trace.ts, gate-frames.ts) stays apart and keeps its detail.
 */
import type { CancelReason } from './turn';

/** Why the active turn ended: it ran to its end (`done`, `failed`) or was cancelled (turn.ts, `CANCEL_REASONS`). */
export type TurnEndReason = 'done' | 'failed' | CancelReason;

/**
 * Where the active turn stands: `thinking` until its reply is heard, `speaking` while it plays, `held` while speech
 * over it may be an interruption (its audio paused until that is decided: resumed, or ended by a barge-in).
 */
export type TurnState = 'thinking' | 'speaking' | 'held';

export type LifecycleEvent =
  | { type: 'turn-started'; turnId: string; at: number }
  | { type: 'turn-speaking'; turnId: string; at: number }
  | { type: 'turn-held'; turnId: string; at: number }
  | { type: 'turn-resumed'; turnId: string; at: number }
  | { type: 'turn-ended'; turnId: string; at: number; reason: TurnEndReason; from: TurnState };

export type LifecycleListener = (event: LifecycleEvent) => void;

/** A set of listeners, called in the order they subscribed. */
export class Listeners<E> {
  private readonly set = new Set<(event: E) => void>();

  add(listener: (event: E) => void): () => void {
    this.set.add(listener);
    return () => this.set.delete(listener);
  }

  emit(event: E): void {
    for (const listener of this.set) listener(event);
  }
}
