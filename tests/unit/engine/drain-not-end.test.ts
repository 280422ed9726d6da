/**
 * A drain is not the end (docs/echo.md): the player ran dry while the reply's last sentence was on its way to it, and
 * said so after that sentence was handed over. The reply is still playing: the turn goes on (speech over it is still a
 * barge-in) until the run that plays it ends.
 */
import { describe, expect, it } from 'vitest';
import { DuplexEngine } from '../../../core/engine/duplex-engine';
import type { EngineEvent, TurnEvent } from '../../../core/engine/types';

const tick = (ms = 10) => new Promise((r) => setTimeout(r, ms));

function engineWithReply() {
  const events: EngineEvent[] = [];
  const engine = new DuplexEngine({
    clock: { now: () => 0 },
    stages: {
      transcribe: async () => ({ text: '', confidence: 1 }),
      respond: async function* () {
        yield 'The first sentence. ';
        yield 'And the last one.';
      },
      speak: async () => {},
    },
  });
  engine.on((e) => events.push(e));
  const stages = () => events.filter((e): e is TurnEvent => e.type === 'turn' && e.turnId === 't1').map((e) => e.stage);
  return { engine, stages };
}

describe('a drain is not the end', () => {
  it('a run that ended with audio in flight keeps the turn speaking; the run that plays it ends the turn', async () => {
    const { engine, stages } = engineWithReply();
    engine.submitText('tell me something');
    await tick(50);
    engine.onPlayback({ type: 'started', turnId: 't1' });
    // Every sentence was handed over: audio-complete is marked before the player's end of its first run arrives.
    expect(stages()).toContain('audio-complete');
    engine.onPlayback({ type: 'ended', turnId: 't1', playedMs: 900, audioInFlight: true });
    expect(stages()).not.toContain('done');
    expect(engine.state).toBe('speaking');
    expect(engine.listensOverReply).toBe(true);
    engine.onPlayback({ type: 'started', turnId: 't1' });
    engine.onPlayback({ type: 'ended', turnId: 't1', playedMs: 1900 });
    expect(stages().filter((s) => s === 'done')).toHaveLength(1);
    expect(engine.state).not.toBe('speaking');
  });

  it('without audio in flight the end of the run is the end of the reply', async () => {
    const { engine, stages } = engineWithReply();
    engine.submitText('tell me something');
    await tick(50);
    engine.onPlayback({ type: 'started', turnId: 't1' });
    engine.onPlayback({ type: 'ended', turnId: 't1', playedMs: 1900 });
    expect(stages().filter((s) => s === 'done')).toHaveLength(1);
  });
});
