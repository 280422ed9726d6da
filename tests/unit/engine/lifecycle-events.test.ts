/**
 * The engine's lifecycle stream (core/engine/turn-lifecycle.ts) over real conversations (real espeak audio, real
 * Silero VAD, manual clock; tests/fixtures/audio/story.ts): its order for a reply interrupted over a hold, for a reply
 * held by a backchannel that goes on, and for a stop; and that it stays in step with the trace's stages.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { LifecycleEvent } from '../../../core/engine/turn-lifecycle';
import type { SileroVadJs as SileroVad } from '../../../models/vad/silero-js';
import { loadSilero, type ScenarioResult } from '../../fixtures/audio/conversation-sim';
import { story } from '../../fixtures/audio/story';

let vad: SileroVad;
beforeAll(async () => {
  vad = await loadSilero();
});

/** `type:turnId`, with the reason and the state it ended from for an end. */
const steps = (events: LifecycleEvent[]) =>
  events.map((e) => `${e.type}:${e.turnId}${e.type === 'turn-ended' ? `:${e.reason}:${e.from}` : ''}`);

/** Each lifecycle step where the trace has its stage: the same turn, the same time. */
function inStepWithTrace(r: ScenarioResult) {
  const at = (stage: 'first-audio' | 'barge-tentative' | 'barge-released' | 'endpoint', turnId: string) =>
    r.marks(stage).find((m) => m.turnId === turnId)?.at;
  for (const e of r.lifecycle) {
    if (e.type === 'turn-speaking') expect(e.at).toBe(at('first-audio', e.turnId));
    if (e.type === 'turn-held') expect(e.at).toBe(at('barge-tentative', e.turnId));
    if (e.type === 'turn-resumed') expect(e.at).toBe(at('barge-released', e.turnId));
    if (e.type === 'turn-ended') {
      const terminal = r.events.find(
        (x) => x.type === 'turn' && x.turnId === e.turnId && ['done', 'failed', 'interrupted'].includes(x.stage),
      );
      expect(terminal?.at).toBe(e.at);
      if (terminal?.type === 'turn' && terminal.stage === 'interrupted') expect(terminal.reason).toBe(e.reason);
    }
  }
}

describe('the lifecycle stream (real Silero VAD)', () => {
  it('an interrupted reply: started, speaking, held, ended by the barge-in from held; then the next turn', async () => {
    const { r } = await story(vad, { then: 'Stop, wait a second.', over: 3200, echoGain: 0.3 });
    expect(r.marks('barge-in')).toHaveLength(1);
    expect(steps(r.lifecycle)).toEqual([
      'turn-started:t1',
      'turn-speaking:t1',
      'turn-held:t1',
      'turn-ended:t1:barge-in:held',
      'turn-started:t2',
      'turn-speaking:t2',
      // The story again (the scenario's only reply), still playing when the simulation turns the mic off.
      'turn-ended:t2:mic-off:speaking',
    ]);
    inStepWithTrace(r);
  });

  it('a backchannel: held, resumed, and the reply plays to its end', async () => {
    const { r } = await story(vad, { then: 'Yeah.', echoGain: 0.3, tailMs: 16000 });
    expect(steps(r.lifecycle)).toEqual([
      'turn-started:t1',
      'turn-speaking:t1',
      'turn-held:t1',
      'turn-resumed:t1',
      'turn-ended:t1:done:speaking',
    ]);
    inStepWithTrace(r);
  });

  it('mic off mid-reply: the reply ends from speaking with reason mic-off, once', async () => {
    const { r } = await story(vad, { echoGain: 0.3, tailMs: 3000 });
    expect(steps(r.lifecycle)).toEqual(['turn-started:t1', 'turn-speaking:t1', 'turn-ended:t1:mic-off:speaking']);
    inStepWithTrace(r);
  });
});
