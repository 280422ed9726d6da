/**
 * Talking over the reply on speakers (issue 23): the built extension hears its own reply through a room (rig.ts) and
 * the user's voice through the same microphone. With the user silent the reply must play to its end, with no barge-in
 * and no user turn; a spoken interruption at normal level must stop the audio.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineMarks } from '../e2e/harness';
import { db, echoGainDb, energyDb, playedRms, roomGains, userRms } from './levels';
import { openRoom, reply, type RoomSession } from './session';
import { activeRms } from './signal';
import { backchannelPhrase, userPhrase } from './speech';

/** The room: 40 ms, reverb 50, a little overdrive; the speakers 10 dB below the user at the microphone. */
const ROOM = { delayS: 0.04, reverb: 50, overdrive: 3 };
const LEVEL_DB = -10;

/**
 * The silent reply: whatever the recogniser transcribes is heard as the reply's own latest words, as a real recogniser
 * hears an echo (the scripted stand-in; the fixture recogniser's letters read as the user asking for the floor: CI and
 * runs here cut 1 in 3 silent replies that way, at an echo the canceller let through). Not for the talked-over reply:
 * there an echo burst released as the reply's own raises the gate's floor to its level (core/engine/residual-floor.ts,
 * released), and the user's voice at normal level was then missed in 2 of 4 runs here: the floor rule the one detector
 * of issue 50 is to replace, not a thing for this test to hide.
 */
const ECHO_HEARD_AS_REPLY = { echoHeardAsReply: true };

let room: RoomSession;
let gainDb = 0;

/** ROOM_TUNABLES="engine.echoTailMs=800,…": live tunables for trying a change of the barge logic on this room. */
const TUNABLES = Object.fromEntries(
  (process.env.ROOM_TUNABLES ?? '')
    .split(',')
    .filter(Boolean)
    .map((kv) => [kv.split('=')[0]!, Number(kv.split('=')[1])]),
);

beforeAll(async () => {
  gainDb = echoGainDb(ROOM, LEVEL_DB);
  room = await openRoom({ ...ROOM, gainDb }, TUNABLES);
});

afterAll(async () => {
  await room?.close();
});

describe('talking over the reply through a room', () => {
  it('a reply playing through the room with the user silent: no barge-in, no user turn, played to its end', async () => {
    const from = Date.now();
    const r = await reply(room, undefined, ECHO_HEARD_AS_REPLY);
    const to = Date.now();
    const atMic = room.room.between(from, to);
    const played = room.speakers.between(from, to);
    const echoLevel = db(activeRms(atMic)) - db(userRms());
    const pathGainDb = energyDb(atMic) - energyDb(played);
    const playedDb = db(activeRms(played));
    console.log('ROOM silent', JSON.stringify({ ...r, echoLevel, pathGainDb, playedDb }));
    // The rig did what it says, in its two parts. The panel played the reply at the level the room was set up for
    // (the speakers' monitor is exact zeros between sentences, so its active level does not depend on the pacing)...
    expect(Math.abs(playedDb - db(playedRms()))).toBeLessThan(3);
    // ...and the room between the speakers and the microphone had the gain asked of it: whole energies over the same
    // window, so the reverb's tails count on both sides wherever the reply paused. The active level at the microphone
    // is only reported: tails in the pauses pull it down by as much as the pacing puts pauses in (CI on 2026-12-06 and
    // runs here measured it 5.1–5.6 dB under the nominal level while the room's gain was 0.15–1.4 dB from the asked
    // one, the larger on a loaded box where the latency cap drops more of the echo; a room 6 dB off reads 5.4 dB off).
    expect(Math.abs(pathGainDb - (gainDb + roomGains(ROOM).energyDb))).toBeLessThan(3);
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
