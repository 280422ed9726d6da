/**
 * The unprocessed microphone (docs/echo.md, "The unprocessed microphone"): in the room rig Chrome's canceller turned
 * the user's voice down to the level of its echo residual while the reply played, so a gate on the processed track
 * missed interruptions. The echo handling reads the unprocessed track instead, where the voice is whole and the echo
 * follows the reply's level. Real Silero on espeak speech (conversation-sim.ts).
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { engineTunables as T, resetTunables, setTunable } from '../../../core/tunables';
import { runScenario, type ScenarioInput } from '../../fixtures/audio/conversation-sim';
import { TrackBuilder } from '../../fixtures/audio/make-audio';
import { loadTwoVads, storyOrGreeting, storyRun } from '../../fixtures/audio/two-tracks';
import type { SileroVadJs } from '../../../models/vad/silero-js';

let vad: SileroVadJs;
let rawVad: SileroVadJs;
beforeAll(async () => {
  ({ vad, rawVad } = await loadTwoVads());
});
afterEach(() => resetTunables('engine'));

/**
 * The story, with "Stop, wait a second." said over it when `interrupt`. Canceller: residual 0.02, near end × 0.05.
 * `greeting`: a first exchange before it, whose reply nobody talks over (the second gate measures its floor there).
 */
function run(interrupt: boolean, input: Partial<ScenarioInput>, greeting = false) {
  return storyRun(vad, { greeting, ...(interrupt ? { stopAfterMs: 4200 } : {}) }, { nearEndWhilePlaying: 0.05, ...input });
}

/**
 * The story asked for twice, with "Stop, wait a second." over each reply: the first is missed (the unprocessed gate
 * has not measured its floor yet), the second should not be. Canceller as in `run`; the unprocessed echo at 0.3.
 */
async function storyTwiceWithStop() {
  const t = new TrackBuilder().pause(500).say('Tell me a long story about a dragon.');
  t.pause(4200).say('Stop, wait a second.');
  t.pause(12000).say('Tell me a long story about a dragon.');
  t.pause(4200).say('Stop, wait a second.');
  t.pause(200);
  const r = await runScenario(vad, {
    user: t.build(),
    segments: t.segments,
    reply: storyOrGreeting,
    echoGain: 0.02,
    nearEndWhilePlaying: 0.05,
    tailMs: 14000,
    unprocessed: { echoGain: 0.3, vad: rawVad },
  });
  return { t, r };
}

describe('both tracks gate a barge-in (the echo handling stays on the processed track)', () => {
  beforeEach(() => setTunable('engine.bargeFromUnprocessed', 1));

  it('the voice the canceller turns down interrupts through the unprocessed track’s own gate', async () => {
    const r = await run(true, { unprocessed: { echoGain: 0.3, vad: rawVad } }, true);
    expect(r.marks('barge-in')).toHaveLength(1);
    expect(r.marks('barge-tentative')[0]).toMatchObject({ unprocessedTrack: true });
    expect(r.respondCalls.at(-1)!.text).toBe('Stop, wait a second.');
  });

  it('not on the first reply: that gate waits until it has measured its own floor', async () => {
    const r = await run(true, { unprocessed: { echoGain: 0.3, vad: rawVad } });
    expect(r.marks('barge-in')).toHaveLength(0);
  });

  // A loaded machine drops that track's VAD on frames that reach it late (models/vad/unprocessed-vad.ts): on CI and
  // in the room rig it judged under ten frames of a 30 s first reply, which then taught that gate nothing, and the
  // gate stayed mute for the voice over the next reply (docs/echo.md, "The unprocessed microphone").
  it('its VAD dropped on most frames of the first reply (a loaded machine), that gate still measures its floor there', async () => {
    const late = { share: 0.95, untilMs: 9000 };
    const r = await run(true, { unprocessed: { echoGain: 0.3, vad: rawVad, late } }, true);
    // The greeting's gate judged almost none of its frames; the floor it left is in force on the later replies.
    const greeting = r
      .marks('echo-path')
      .filter((m) => m.turnId === 't1')
      .at(-1)!;
    expect(greeting.rawVoicedUnderGateFrames).toBeLessThan(10);
    expect(r.marks('echo-path').at(-1)!.rawFloorRms).toBeGreaterThan(T.bargeMinRms);
    expect(r.marks('barge-in')).toHaveLength(1);
    expect(r.marks('barge-tentative')[0]).toMatchObject({ unprocessedTrack: true });
    expect(r.respondCalls.at(-1)!.text).toBe('Stop, wait a second.');
  });

  it('the same voice is missed with the second gate off (what the first test guards)', async () => {
    setTunable('engine.bargeFromUnprocessed', 0);
    const r = await run(true, { unprocessed: { echoGain: 0.3, vad: rawVad } }, true);
    expect(r.marks('barge-in')).toHaveLength(0);
  });

  it("the unprocessed track's loud, late echo alone neither lowers the replies nor opens a turn", async () => {
    // Two replies: on the second the gate decides from the floor it measured on the first.
    const r = await run(false, { unprocessed: { echoGain: 0.3, vad: rawVad }, echoDelayMs: 480 }, true);
    const played = r.first('first-audio');
    expect(r.marks('barge-tentative')).toHaveLength(0);
    expect(r.marks('barge-in')).toHaveLength(0);
    // The second question is the only speech after the first reply began.
    expect(r.marks('speech-start').filter((m) => m.at > played)).toHaveLength(1);
    expect(r.marks('done')).toHaveLength(2);
    // The second gate reported its own measure.
    const path = r.marks('echo-path').at(-1)!;
    expect(path.rawPeakOverGate).toBeGreaterThan(0);
    expect(path.rawPeakOverGate).toBeLessThan(1);
  });

  // docs/echo.md, "A missed voice": a voice the gates missed is learned as the reply's residual, and the next reply's
  // floor stands over the same voice (the room sweep 04u2 missed its last five at -10 dB in a row): a weakness.
  it('a voice missed on the first reply lifts the floor over the same voice on the next, capped by the window rank', async () => {
    const { r } = await storyTwiceWithStop();
    const [first, second] = r.marks('echo-path');
    expect(first!.rawResidualRunRms).toBeGreaterThan(0.08);
    expect(r.marks('barge-in')).toHaveLength(0);
    // The cap on a reply's level (docs/echo.md, "A missed voice") keeps it to twice the fourth loudest window's, the
    // echo's: the floor is half what the voice would have made it, and still over the voice (0.11), 4.3× that echo.
    const { bargeResidualMargin, residualPeakOverRank } = T;
    expect(second!.turnId).toBe('t2');
    expect(second!.rawFloorRms).toBeCloseTo(bargeResidualMargin * residualPeakOverRank * first!.rawResidualRank4Rms!, 6);
    expect(second!.rawFloorRms).toBeGreaterThan(first!.rawResidualRunRms!);
    expect(second!.rawFloorRms).toBeLessThan((bargeResidualMargin * first!.rawResidualRunRms!) / 2);
  });
});
