/**
 * Talking over the reply on speakers (issue 23): the built extension hears its own reply through a room (rig.ts) and
 * the user's voice through the same microphone. With the user silent the reply must play to its end, with no barge-in
 * and no user turn; a spoken interruption at normal level must stop the audio.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineMarks } from '../e2e/harness';
import { db, echoGainDb, userRms } from './levels';
import { openRoom, reply, type RoomSession } from './session';
import { activeRms } from './signal';
import { backchannelPhrase, userPhrase } from './speech';

/** The room: 40 ms, reverb 50, a little overdrive; the speakers 10 dB below the user at the microphone. */
const ROOM = { delayS: 0.04, reverb: 50, overdrive: 3 };
const LEVEL_DB = -10;

let room: RoomSession;

/** ROOM_TUNABLES="engine.echoTailMs=800,…": live tunables for trying a change of the barge logic on this room. */
const TUNABLES = Object.fromEntries(
  (process.env.ROOM_TUNABLES ?? '')
    .split(',')
    .filter(Boolean)
    .map((kv) => [kv.split('=')[0]!, Number(kv.split('=')[1])]),
);

beforeAll(async () => {
  room = await openRoom({ ...ROOM, gainDb: echoGainDb(ROOM, LEVEL_DB) }, TUNABLES);
});

afterAll(async () => {
  await room?.close();
});

describe('talking over the reply through a room', () => {
  it('a reply playing through the room with the user silent: no barge-in, no user turn, played to its end', async () => {
    const from = Date.now();
    const r = await reply(room);
    const echoLevel = db(activeRms(room.room.between(from, Date.now()))) - db(userRms());
    console.log('ROOM silent', JSON.stringify({ ...r, echoLevel }));
    // The rig did what it says: the reply reached the microphone at the level asked for (four runs on 2026-12-03
    // measured 0.3–3.0 dB under it: the reply's words and Chrome's processing differ from run to run).
    expect(Math.abs(echoLevel - LEVEL_DB)).toBeLessThan(4);
    const marks = (await engineMarks(room.panel)).filter((m) => m.turnId === r.turnId).map((m) => m.name);
    expect(marks).toContain('done');
    expect(r.falseBargeIns).toBe(0);
    // No turn from the echo (the goal). Onsets from the echo's tail that are discarded as the reply's own
    // are counted and reported (bench/room), not failed: docs/echo.md, "The echo of the reply's end".
    expect(r.phantomTurns).toBe(0);
  });

  it('a spoken interruption at normal level stops the audio; its reply then plays with no barge-in', async () => {
    const r = await reply(room, { wav: userPhrase(0), afterMs: 2500 });
    console.log('ROOM interrupt', JSON.stringify(r));
    expect(r.falseBargeIns).toBe(0); // before the user spoke
    expect(r.interrupted?.detected).toBe(true);
    // The voice held the reply: the engine's hold came after the voice reached the microphone (not before: the echo
    // did not start it), and the speakers then went silent for good. When their silence began is not asserted: on a
    // busy machine the voice worker falls behind real time, and a gap between sentences may be under the voice
    // ("gap at onset", docs/benchmarks.md); the sweep reports the stop latency.
    expect(r.interrupted?.voiceToDuckMs).toBeGreaterThan(0);
    expect(r.interrupted?.stopLatencyMs).toBeDefined();
    expect(r.followUp?.falseBargeIns).toBe(0);
    expect(r.followUp?.phantomTurns).toBe(0);
  });

  it('"mm-hm" over the reply, heard as a listener\'s word: the reply goes on to its end and no turn is taken', async () => {
    // The fixture recogniser writes letters for any burst, which ask for the floor; the scripted stand-in reports what
    // a real recogniser writes for this phrase, so what is measured is the engine's hold and release over a real room.
    const r = await reply(room, {
      wav: backchannelPhrase(0),
      afterMs: 2500,
      kind: 'backchannel',
      text: 'Mm-hm.',
      heardAs: 'Mm-hmm.',
    });
    console.log('ROOM backchannel', JSON.stringify(r));
    expect(r.falseBargeIns).toBe(0); // before the user spoke
    const b = r.backchannel!;
    expect(b.preempted).toBe(false);
    expect(b.stopped).toBe(false);
    expect(b.turns).toBe(0);
    expect(b.playedOn).toBe(true);
    // A burst the engine held is always read, so the stand-in was (the first reply of a session, with the floor not yet
    // measured, may not hold for a soft "mm-hm" at all: then nothing was read, and the reply rightly went on).
    expect(b.held ? b.transcriptsScripted : 1).toBeGreaterThan(0);
  });
});
