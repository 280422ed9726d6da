/**
 * The session's first reply in a loud room (docs/echo.md, "The first reply in a loud room"): until a reply has been
 * measured, the processed track's gate stands at the fixed floor, and where Chrome's canceller lapses its residual
 * rises over that floor for runs long enough to hold the reply. In the room rig such a hold was then cut by the
 * recogniser's words. Real Silero on espeak speech (conversation-sim.ts).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetTunables, setTunable } from '../../../core/tunables';
import { loadTwoVads, storyRun } from '../../fixtures/audio/two-tracks';
import type { SileroVadJs } from '../../../models/vad/silero-js';

let vad: SileroVadJs;
let rawVad: SileroVadJs;
beforeAll(async () => {
  ({ vad, rawVad } = await loadTwoVads());
});
afterEach(() => resetTunables('engine'));

/** The story as the session's first reply, with "Stop, wait a second." over it when `interrupt`. */
async function firstReply(opts: {
  interrupt: boolean;
  lapses: boolean;
  nearEnd?: number;
  rawEcho?: number;
  echoHeard?: boolean;
}) {
  return storyRun(vad, opts.interrupt ? { stopAfterMs: 5200 } : {}, {
    nearEndWhilePlaying: opts.nearEnd ?? 0.05,
    echoDelayMs: 480,
    unprocessed: { echoGain: opts.rawEcho ?? 0.3, vad: rawVad },
    ...(opts.echoHeard ? { replyAudio: false, echoHeardAs: 'Then the boat sailed on.' } : {}),
    ...(opts.lapses ? { cancellerLapses: { gain: 0.3, everyMs: 320, share: 0.3 } } : {}),
  });
}

/** The canceller lapses in 30 % of 320 ms windows: its residual there is the echo at 0.3 (0.02 elsewhere). */
describe("the session's first reply, before any floor is measured", () => {
  it("a lapsing canceller's residual does not hold the reply: it plays to its end", async () => {
    const r = await firstReply({ interrupt: false, lapses: true, echoHeard: true });
    expect(r.marks('barge-tentative')).toHaveLength(0);
    expect(r.marks('barge-in')).toHaveLength(0);
    expect(r.marks('done')).toHaveLength(1);
    expect(r.respondCalls).toHaveLength(1);
  });

  it('without the check the residual holds it through the fixed floor, and the words heard in its echo cut it', async () => {
    setTunable('engine.bargeFirstReplyCrossCheck', 0);
    const r = await firstReply({ interrupt: false, lapses: true, echoHeard: true });
    expect(r.marks('barge-tentative').length).toBeGreaterThan(0);
    expect(r.marks('barge-in')).toHaveLength(1);
  });

  it('a voice over it still interrupts, also while the canceller lapses', async () => {
    const r = await firstReply({ interrupt: true, lapses: true, nearEnd: 0.3, echoHeard: true });
    expect(r.marks('barge-in')).toHaveLength(1);
    expect(r.respondCalls.at(-1)!.text).toBe('Stop, wait a second.');
  });

  it('the check costs an interruption no time: held at the same moment as without it', async () => {
    const withCheck = await firstReply({ interrupt: true, lapses: false, nearEnd: 1 });
    setTunable('engine.bargeFirstReplyCrossCheck', 0);
    const without = await firstReply({ interrupt: true, lapses: false, nearEnd: 1 });
    expect(withCheck.marks('barge-tentative')).toHaveLength(1);
    expect(withCheck.first('barge-tentative')).toBe(without.first('barge-tentative'));
    expect(withCheck.first('barge-in')).toBe(without.first('barge-in'));
  });
});
