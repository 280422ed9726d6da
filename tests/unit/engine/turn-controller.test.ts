/**
 * The turn controller (core/engine/turn-controller.ts): every turn ends through `end(reason)`, whose cleanup runs
 * exactly once whatever state the turn is in and however often it is called; `held` is a state of its own, left by
 * resuming or by ending.
 */
import { describe, expect, it } from 'vitest';
import { TurnCancelled } from '../../../core/engine/turn';
import { TurnController, type ActiveTurn } from '../../../core/engine/turn-controller';
import type { LifecycleEvent, TurnEndReason, TurnState } from '../../../core/engine/turn-lifecycle';
import type { EngineEvent } from '../../../core/engine/types';

function controller() {
  let now = 0;
  const trace: EngineEvent[] = [];
  const lifecycle: LifecycleEvent[] = [];
  let begun = 0;
  const turns = new TurnController({ now: () => now }, undefined, () => begun++);
  turns.on((e) => trace.push(e));
  turns.onLifecycle((e) => lifecycle.push(e));
  const aborts: unknown[] = [];
  const begin = (): ActiveTurn => {
    now += 10;
    const active = turns.begin(turns.createTurn('thinking'), now);
    active.turn.signal.addEventListener('abort', () => aborts.push(active.turn.signal.reason));
    return active;
  };
  /** Brings the active turn to `state`, as the engine does: the player starts it, speech over it holds it. */
  const reach = (active: ActiveTurn, state: TurnState) => {
    if (state === 'thinking') return;
    expect(turns.speaking(active)).toBe(true);
    if (state === 'held') turns.hold(active);
    expect(turns.turnState).toBe(state);
  };
  const stages = (turnId: string) =>
    trace.filter((e) => e.type === 'turn' && e.turnId === turnId).map((e) => e.type === 'turn' && e.stage);
  return { turns, trace, lifecycle, aborts, begin, reach, stages, begun: () => begun };
}

const CANCELS: TurnEndReason[] = ['barge-in', 'stop', 'resumed', 'superseded', 'watchdog', 'mic-off'];
const STATES: TurnState[] = ['thinking', 'speaking', 'held'];

describe('TurnController.end(reason): one cleanup path', () => {
  for (const state of STATES) {
    for (const reason of [...CANCELS, 'done', 'failed'] as TurnEndReason[]) {
      it(`from ${state}, ${reason}: cleans up once, and a second end does nothing`, () => {
        const c = controller();
        const active = c.begin();
        c.reach(active, state);
        active.pendingResume = { heardAt: 1, onsetAt: 1 };
        expect(c.turns.end(reason, active)).toBe(true);
        expect(c.turns.end(reason, active)).toBe(false);
        expect(c.turns.end(reason)).toBe(false);

        expect(c.turns.active).toBeNull();
        expect(c.turns.turnState).toBeNull();
        expect(active.pendingResume).toBeUndefined();
        const cancelled = reason !== 'done' && reason !== 'failed';
        // The turn's signal: aborted once with the reason for a cancel (its reply stops), untouched for an end.
        expect(c.aborts).toHaveLength(cancelled ? 1 : 0);
        if (cancelled) expect((c.aborts[0] as TurnCancelled).reason).toBe(reason);
        expect(active.turn.phase).toBe(cancelled ? 'interrupted' : reason);
        // One terminal stage in the trace, one end in the lifecycle, from the state the turn was in.
        const terminal = c.stages(active.turn.id).filter((s) => s === 'done' || s === 'failed' || s === 'interrupted');
        expect(terminal).toEqual([cancelled ? 'interrupted' : reason]);
        const ends = c.lifecycle.filter((e) => e.type === 'turn-ended');
        expect(ends).toEqual([{ type: 'turn-ended', turnId: active.turn.id, at: 10, reason, from: state }]);
      });
    }
  }

  it('ends only the active turn: a stale handle (a turn already replaced) changes nothing', () => {
    const c = controller();
    const first = c.begin();
    c.turns.end('superseded', first);
    const second = c.begin();
    expect(c.turns.end('barge-in', first)).toBe(false);
    expect(c.turns.active).toBe(second);
    expect(second.turn.signal.aborted).toBe(false);
    expect(c.lifecycle.filter((e) => e.type === 'turn-ended')).toHaveLength(1);
    expect(c.begun()).toBe(2);
  });
});

describe('TurnController: held is a turn state', () => {
  it('held → resumed: back to speaking, and the hold can come again', () => {
    const c = controller();
    const active = c.begin();
    c.reach(active, 'held');
    c.turns.hold(active); // a second track's hold of the same speech: still one hold
    c.turns.resume(active);
    expect(c.turns.turnState).toBe('speaking');
    c.turns.resume(active); // nothing held: nothing to resume
    c.turns.hold(active);
    expect(c.turns.turnState).toBe('held');
    expect(c.lifecycle.map((e) => e.type)).toEqual(['turn-started', 'turn-speaking', 'turn-held', 'turn-resumed', 'turn-held']);
    expect(active.turn.signal.aborted).toBe(false);
  });

  it('held → ended: a barge-in ends the held turn, and the next turn does not start held', () => {
    const c = controller();
    const active = c.begin();
    c.reach(active, 'held');
    c.turns.end('barge-in', active);
    c.turns.resume(active); // a late release of the ended turn's burst
    const next = c.begin();
    expect(c.turns.turnState).toBe('thinking');
    c.turns.hold(next); // not speaking yet: nothing to hold
    expect(c.turns.turnState).toBe('thinking');
    expect(c.lifecycle.map((e) => `${e.type}:${e.turnId}${e.type === 'turn-ended' ? `:${e.from}` : ''}`)).toEqual([
      'turn-started:t1',
      'turn-speaking:t1',
      'turn-held:t1',
      'turn-ended:t1:held',
      'turn-started:t2',
    ]);
  });

  it('the hold stays off the trace: the trace keeps its own stages', () => {
    const c = controller();
    const active = c.begin();
    c.reach(active, 'held');
    c.turns.resume(active);
    expect(c.trace).toHaveLength(0);
  });
});
