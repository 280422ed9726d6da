import { describe, expect, it } from 'vitest';
import { DuplexEngine } from '../../../core/engine/duplex-engine';
import { Turn, TurnCancelled } from '../../../core/engine/turn';
import type { EngineEvent, EngineStages, TurnEvent } from '../../../core/engine/types';
import { speechStagesFor } from '../../../core/vision/turn-stages';

function turnWithLog(phase: 'listening' | 'thinking' = 'thinking') {
  const events: TurnEvent[] = [];
  let now = 0;
  const turn = new Turn('t1', phase, { now: () => now++ }, (e) => events.push(e));
  return { turn, events };
}

describe('Turn: one owner of a reply', () => {
  it('moves forward only, and never out of an end', () => {
    const { turn } = turnWithLog('listening');
    expect(turn.advance('thinking')).toBe(true);
    expect(turn.advance('speaking')).toBe(true);
    expect(turn.advance('thinking')).toBe(false);
    expect(turn.phase).toBe('speaking');
    turn.finish('done', {});
    expect(turn.phase).toBe('done');
    expect(turn.advance('speaking')).toBe(false);
    expect(turn.cancel('stop')).toBe(false);
    expect(turn.phase).toBe('done');
  });

  it('cancel(reason) aborts the one signal with that reason and announces it exactly once', () => {
    const { turn, events } = turnWithLog();
    const seen: unknown[] = [];
    turn.signal.addEventListener('abort', () => seen.push(turn.signal.reason));
    expect(turn.cancel('barge-in')).toBe(true);
    expect(turn.cancel('watchdog')).toBe(false);
    turn.finish('done', {});
    expect(turn.phase).toBe('interrupted');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(TurnCancelled);
    expect((seen[0] as TurnCancelled).reason).toBe('barge-in');
    expect((seen[0] as TurnCancelled).name).toBe('AbortError');
    expect(events.map((e) => e.stage)).toEqual(['interrupted']);
    expect(events[0]).toMatchObject({ type: 'turn', stage: 'interrupted', turnId: 't1', reason: 'barge-in' });
  });

  it('a failed reply ends in the failed phase with one failed event', () => {
    const { turn, events } = turnWithLog();
    turn.finish('failed', {});
    turn.finish('done', {});
    expect(turn.phase).toBe('failed');
    expect(events.map((e) => e.stage)).toEqual(['failed']);
  });
});

function typedEngine(extra: Partial<EngineStages> = {}) {
  let t = 0;
  const reasons: unknown[] = [];
  const events: EngineEvent[] = [];
  const engine = new DuplexEngine({
    clock: { now: () => t },
    stages: {
      transcribe: async () => ({ text: '', confidence: 1 }),
      respond: async function* (_turn, signal) {
        signal.addEventListener('abort', () => reasons.push((signal.reason as TurnCancelled).reason));
        yield 'A long answer that keeps going. ';
        await new Promise((r) => setTimeout(r, 40));
        yield 'And more.';
      },
      speak: async () => {
        t += 10;
      },
      ...extra,
    },
  });
  engine.on((e) => events.push(e));
  const terminal = (turnId: string) =>
    events.filter(
      (e): e is TurnEvent => e.type === 'turn' && e.turnId === turnId && ['done', 'failed', 'interrupted'].includes(e.stage),
    );
  return { engine, events, reasons, terminal };
}

const tick = (ms = 10) => new Promise((r) => setTimeout(r, ms));

describe('DuplexEngine: every cancellation goes through the turn', () => {
  it('Stop interrupts the turn with reason "stop"; the reply stage sees that reason; no done follows', async () => {
    const { engine, reasons, terminal } = typedEngine();
    engine.submitText('tell me a story');
    await tick();
    engine.interrupt();
    await tick(80);
    expect(reasons).toEqual(['stop']);
    expect(terminal('t1').map((e) => e.stage)).toEqual(['interrupted']);
    expect(terminal('t1')[0]).toMatchObject({ reason: 'stop' });
    expect(engine.state).toBe('idle');
  });

  it('a typed turn supersedes the one in flight; playback cut by the player interrupts the turn', async () => {
    const { engine, reasons, terminal } = typedEngine();
    engine.submitText('first');
    await tick();
    engine.submitText('second');
    await tick();
    expect(terminal('t1')).toMatchObject([{ stage: 'interrupted', reason: 'superseded' }]);
    engine.onPlayback({ type: 'started', turnId: 't2' });
    expect(engine.state).toBe('speaking');
    engine.onPlayback({ type: 'ended', turnId: 't2', interrupted: true });
    await tick(80);
    expect(reasons).toEqual(['superseded', 'stop']);
    expect(terminal('t2')).toMatchObject([{ stage: 'interrupted', reason: 'stop' }]);
  });

  it('after Stop, the history and the caption become the words the player reports as played', async () => {
    const { engine, events } = typedEngine({
      playedSentences: () => [
        { text: 'A long answer that keeps going.', audioMs: 2500, complete: true },
        { text: 'And more.', audioMs: 900, complete: false },
      ],
    });
    engine.submitText('tell me a story');
    await tick();
    engine.onPlayback({ type: 'started', turnId: 't1' });
    engine.interrupt();
    // Until the player says how much it played: what was handed to TTS, marked.
    expect(engine.messages.at(-1)).toEqual({ role: 'assistant', text: 'A long answer that keeps going. [interrupted]' });
    // 25 letters over 2500 ms: "A" 0–100, "long" 100–500, "answer" 500–1100: at 800 ms, "answer" is half played.
    engine.onPlayback({ type: 'ended', turnId: 't1', interrupted: true, playedMs: 800 });
    expect(engine.messages).toEqual([
      { role: 'user', text: 'tell me a story' },
      { role: 'assistant', text: 'A long answer [interrupted]' },
    ]);
    const finals = events.filter((e) => e.type === 'caption' && e.role === 'assistant' && e.final);
    expect(finals.map((e) => (e.type === 'caption' ? e.text : ''))).toEqual([
      'A long answer that keeps going. —',
      'A long answer —',
    ]);
  });

  it('a turn that runs to its end announces first-audio, audio-complete and one done', async () => {
    const { engine, events, terminal } = typedEngine();
    engine.submitText('hello');
    await tick(80);
    engine.onPlayback({ type: 'started', turnId: 't1' });
    engine.onPlayback({ type: 'ended', turnId: 't1' });
    const stages = events.filter((e) => e.type === 'turn').map((e) => e.stage);
    expect(stages).toEqual(
      expect.arrayContaining(['llm-start', 'first-token', 'first-speak', 'audio-complete', 'first-audio', 'done']),
    );
    expect(stages.indexOf('first-audio')).toBeLessThan(stages.indexOf('done'));
    expect(terminal('t1').map((e) => e.stage)).toEqual(['done']);
  });
});

describe('camera scheduler follows the typed turn stages', () => {
  it('every way a turn ends releases the GPU stages it held', () => {
    for (const stage of ['done', 'failed'] as const) {
      expect(speechStagesFor({ type: 'turn', stage, turnId: 't1', at: 0 })).toEqual(
        expect.arrayContaining([
          ['llm', false],
          ['tts', false],
          ['playback', false],
        ]),
      );
    }
    expect(speechStagesFor({ type: 'turn', stage: 'interrupted', reason: 'watchdog', turnId: 't1', at: 0 })).toEqual(
      expect.arrayContaining([
        ['llm', false],
        ['playback', false],
      ]),
    );
  });
});

describe('DuplexEngine: turn ids never repeat across engines (offscreen documents)', () => {
  function prefixed(prefix: string) {
    const events: EngineEvent[] = [];
    const engine = new DuplexEngine({
      clock: { now: () => 0 },
      turnIdPrefix: prefix,
      stages: {
        transcribe: async () => ({ text: '', confidence: 1 }),
        respond: async function* () {
          yield 'A long answer that keeps going. ';
          await new Promise((r) => setTimeout(r, 40));
          yield 'And more.';
        },
        speak: async () => {},
      },
    });
    engine.on((e) => events.push(e));
    return { engine, ids: () => [...new Set(events.flatMap((e) => (e.type === 'turn' ? [e.turnId] : [])))], events };
  }

  it('each engine numbers its turns after its own prefix, and a report for the other engine’s turn is not its own', async () => {
    const first = prefixed('a1b2c3d4.');
    const second = prefixed('e5f6a7b8.');
    first.engine.submitText('hello');
    second.engine.submitText('hello');
    await tick();
    expect(first.ids()).toEqual(['a1b2c3d4.t1']);
    expect(second.ids()).toEqual(['e5f6a7b8.t1']);
    // The first document's turn was stopped; the panel's report of it reaches the new document's engine.
    second.engine.onPlayback({ type: 'started', turnId: 'a1b2c3d4.t1' });
    second.engine.onPlayback({ type: 'ended', turnId: 'a1b2c3d4.t1', interrupted: true });
    await tick(20);
    const cut = () => second.events.filter((e) => e.type === 'turn' && e.stage === 'interrupted');
    expect(cut()).toEqual([]);
    // The same report for its own turn does cut it (so the check above could fail).
    second.engine.onPlayback({ type: 'started', turnId: 'e5f6a7b8.t1' });
    second.engine.onPlayback({ type: 'ended', turnId: 'e5f6a7b8.t1', interrupted: true });
    await tick(80);
    expect(cut()).toMatchObject([{ turnId: 'e5f6a7b8.t1' }]);
  });
});
