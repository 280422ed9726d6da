/**
 * A reply whose start the player reports late (docs/echo.md, "A start the player reports late"). In the room rig, on
 * a loaded machine, the session's first reply was cancelled by its own echo: the audio played and came back through
 * the room before the side panel's "started" reached the engine, and the engine took the echo for the user resuming.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetTunables, setTunable } from '../../../core/tunables';
import { DEFAULT_LATENCY, loadSilero, runScenario } from '../../fixtures/audio/conversation-sim';
import { TrackBuilder } from '../../fixtures/audio/make-audio';
import type { SileroVadJs as SileroVad } from '../../../models/vad/silero-js';

let vad: SileroVad;
beforeAll(async () => {
  vad = await loadSilero();
});
afterEach(() => resetTunables('engine'));

const REPLY = 'The harbour was quiet that night. The keeper climbed the stairs.';

/**
 * The user asks once; the reply's echo is loud and quick, and the side panel is 300 ms behind. `streamAheadMs`: the
 * voice streams, so the first sentence's audio plays while its synthesis is still running.
 */
function lateStart(streamAheadMs = 0) {
  const t = new TrackBuilder().pause(500).say('Tell me about the lighthouse.').pause(200);
  return runScenario(vad, {
    user: t.build(),
    segments: t.segments,
    echoGain: 0.5,
    echoDelayMs: 40,
    panelLateMs: 300,
    latency: { ...DEFAULT_LATENCY, ttsStreamAheadMs: streamAheadMs },
    tailMs: 12_000,
    reply: () => REPLY,
  });
}

describe('a start the player reports late', () => {
  it("the reply's echo before its start is not the user resuming: the reply plays to its end", async () => {
    const r = await lateStart();
    const started = r.playback.find((p) => p.event.type === 'started')!;
    // The scenario does what it says: the echo was loud enough for an onset before the start reached the engine.
    expect(r.first('first-audio')).toBeGreaterThanOrEqual(started.at + 300);
    expect(r.marks('interrupted')).toHaveLength(0);
    expect(r.marks('merge')).toHaveLength(0);
    expect(r.marks('done')).toHaveLength(1);
    expect(r.speaks.map((s) => s.sentence)).toHaveLength(2);
    expect(r.engine.messages.filter((m) => m.role === 'user')).toHaveLength(1);
  });

  it('the same with a streaming voice: its first audio plays before the sentence is synthesised', async () => {
    const r = await lateStart(1500);
    const started = r.playback.find((p) => p.event.type === 'started')!;
    expect(r.first('first-audio')).toBeGreaterThanOrEqual(started.at + 300);
    expect(r.marks('interrupted')).toHaveLength(0);
    expect(r.marks('done')).toHaveLength(1);
  });

  it('the user speaking on while the audio is queued and its start is late still takes the turn back', async () => {
    const t = new TrackBuilder().pause(500).say('Tell me about Lisbon.').pause(1000).say('And its old trams.').pause(200);
    const r = await runScenario(vad, {
      user: t.build(),
      segments: t.segments,
      panelLateMs: 1500,
      tailMs: 8000,
      reply: (turn) => (turn.text.includes('trams') ? 'Lisbon trams are famous.' : 'Lisbon is lovely. It has seven hills.'),
    });
    const second = t.segments[1]!;
    // The scenario does what it says: the first reply's audio was at the player when the user spoke on.
    const queued = r.speaks.find((s) => s.sentence.startsWith('Lisbon is lovely'));
    expect(queued).toBeDefined();
    // Both halves became one turn, decided after the grace while the user still spoke.
    const merged = r.marks('merge').filter((m) => m.turnId === 't1');
    expect(merged).toHaveLength(1);
    expect(merged[0]!.at).toBeGreaterThan(second.startMs);
    expect(merged[0]!.at).toBeLessThan(second.endMs);
    expect(r.respondCalls.at(-1)!.text).toContain('trams');
  });

  it('with no grace (the rule this rests on), the same echo cancels the reply as a resumption', async () => {
    setTunable('engine.resumeGraceMs', 0);
    const r = await lateStart();
    expect(r.marks('done')).toHaveLength(0);
    expect(r.marks('interrupted').length + r.marks('merge').length).toBeGreaterThan(0);
  });
});
