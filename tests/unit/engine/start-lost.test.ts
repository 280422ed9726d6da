/**
 * A reply whose first run of audio played without the player saying it started (docs/echo.md, "A start the player
 * lost"). In the room rig that left the turn "thinking" while its audio played and drained between sentences: the
 * microphone frames over it were judged as the user resuming before any audio, and its own echo cancelled it.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetTunables } from '../../../core/tunables';
import { loadSilero, runScenario } from '../../fixtures/audio/conversation-sim';
import { TrackBuilder } from '../../fixtures/audio/make-audio';
import type { SileroVadJs as SileroVad } from '../../../models/vad/silero-js';

let vad: SileroVad;
beforeAll(async () => {
  vad = await loadSilero();
});
afterEach(() => resetTunables('engine'));

const REPLY = 'The harbour was quiet that night. The keeper climbed the stairs. He lit the lamp at the top.';

describe('a start the player lost', () => {
  // Red without the engine's rule: the echo of the first sentence (1.8 s late) opened a "resume" that cancelled the
  // reply, and the echo's gibberish got the clarify line.
  it('the run that drained counts as heard: the reply plays on, its echo is not the user, the turn ends done', async () => {
    const t = new TrackBuilder().pause(500).say('Tell me about the lighthouse.').pause(200);
    const r = await runScenario(vad, {
      user: t.build(),
      segments: t.segments,
      echoGain: 0.3,
      echoDelayMs: 1800,
      // Speech slower than real time: the player drains after each sentence, as on the rig's machine.
      latency: { ttsMs: 2500 },
      tailMs: 16_000,
      startLostFor: 't1',
      reply: () => REPLY,
    });
    const ends = r.playback.filter((p) => p.event.type === 'ended');
    // The scenario does what it says: the first run drained (ended) before the next sentence came, with no start.
    expect(ends.length).toBeGreaterThan(1);
    expect(r.playback.filter((p) => p.event.type === 'started').length).toBe(ends.length - 1);
    // The turn counted as speaking from the first drained run on, and nothing over its echo took the floor.
    expect(r.first('first-audio')).toBeLessThanOrEqual(ends[0]!.at);
    expect(r.marks('interrupted')).toHaveLength(0);
    expect(r.marks('merge')).toHaveLength(0);
    expect(r.marks('done')).toHaveLength(1);
    expect(r.speaks.map((s) => s.sentence)).toHaveLength(3);
    expect(r.engine.messages.filter((m) => m.role === 'user')).toHaveLength(1);
  });
});
