/**
 * Talking over the reply on speakers, measured (issue 23; docs/benchmarks.md, "Talking over the reply"): the built
 * extension in the acoustic loop of tests/room/rig.ts, swept over the speaker level at the microphone relative to the
 * user, the reverb and the speaker's non-linearity. Per room: one reply with the user silent, one the user talks over
 * (and the reply that interruption gets, with the user silent again), and one with a backchannel over it. Reported: echo return loss enhancement of
 * Chrome's canceller (echo at the microphone vs what the offscreen document's microphone delivers), false barge-ins
 * and phantom user onsets while the user is silent, missed barge-ins, and voice onset → speakers silent.
 *
 * Run (2 shared cores: take the e2e lock; ~10 min):
 *   flock /tmp/sidetalk-e2e.lock bash -c 'npm run build:test && npx jiti bench/room/run.ts --out bench/results/<date>-ci-box-room'
 * Options: --levels -30,-20,-10  --reverbs 0,50,80  --overdrive 0,3 (a 40 ms room each)
 *   --grid N --seed S: instead, N rooms drawn from the seeded grid (tests/room/room-chain.ts `roomGrid`: delay,
 *   reverb, overdrive, level, band limits, resonance).
 *   --heard-as-said: the recogniser reports each phrase's own words while it plays (the scripted stand-in,
 *   `debug/asr-script`), so backchannels are decided on a listener's words, not the fixture recogniser's letters.
 *   --echo-heard-as-reply: while the user is silent the recogniser reports the reply's latest words (what a real one
 *   writes for its echo; tests/room/session.ts ReplyOptions), not the fixture's letters.
 * Besides `<out>.json` and `<out>.md`: `<out>-echo.json.gz`, the microphone beside the reference over every reply
 * (bench/room/echo-recording.ts, for bench/echo/room-offline.ts); `<out>-frames.json.gz`, both barge gates' frames during every reply
 * (bench/room/gate-frames.ts), to try a rule on a whole sweep without running it again.
 */
import { cpus } from 'node:os';
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { db, echoGainDb, userRms } from '../../tests/room/levels';
import { roomGrid, type GridRoom } from '../../tests/room/room-chain';
import { ROOM_PATH } from '../../tests/room/rig';
import { openRoom, reply } from '../../tests/room/session';
import { activeRms } from '../../tests/room/signal';
import { BACKCHANNELS, BACKCHANNELS_HEARD_AS, backchannelPhrase, INTERRUPTIONS, userPhrase } from '../../tests/room/speech';
import { takeGateFrames, type GateFrames } from './gate-frames';
import { takeEchoRecording, type EchoRecordingTake } from './echo-recording';
import { markdown, summarise, type RoomRow } from './report';

function arg(name: string, fallback: string): number[] {
  const i = process.argv.indexOf(`--${name}`);
  return (i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback).split(',').map(Number);
}
const LEVELS = arg('levels', '-30,-20,-10');
const REVERBS = arg('reverbs', '0,50,80');
const OVERDRIVE = arg('overdrive', '0,3');
const tunablesAt = process.argv.indexOf('--tunables');
/** e.g. `--tunables engine.bargeRatio=3,engine.echoTailMs=600`: live values set before the sweep. */
const TUNABLES: Record<string, number> = {
  // Both gates' frames during every reply, for `<out>-frames.json` (bench/room/gate-frames.ts); decides nothing.
  'engine.traceGateFrames': 1,
  ...Object.fromEntries(
    (tunablesAt >= 0 ? process.argv[tunablesAt + 1]! : '')
      .split(',')
      .filter(Boolean)
      .map((kv) => [kv.split('=')[0]!, Number(kv.split('=')[1])]),
  ),
};
const HEARD_AS_SAID = process.argv.includes('--heard-as-said');
const ECHO_AS_REPLY = { echoHeardAsReply: process.argv.includes('--echo-heard-as-reply') };
const outAt = process.argv.indexOf('--out');
const OUT = outAt >= 0 ? process.argv[outAt + 1] : undefined;
const DELAY_S = 0.04;

/** `--from <base>`: re-renders `<base>.json` (summary and table) with this report, without running anything. */
function rerender(base: string): void {
  const saved = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as { meta: Record<string, unknown>; rows: RoomRow[] };
  const summary = summarise(saved.rows);
  writeFileSync(`${base}.json`, `${JSON.stringify({ meta: saved.meta, summary, rows: saved.rows }, null, 1)}\n`);
  writeFileSync(`${base}.md`, markdown(summary, saved.rows, saved.meta));
}

async function main(): Promise<void> {
  const fromAt = process.argv.indexOf('--from');
  if (fromAt >= 0) return rerender(process.argv[fromAt + 1]!);
  const gridAt = process.argv.indexOf('--grid');
  const rooms: GridRoom[] =
    gridAt >= 0
      ? roomGrid(arg('seed', '50')[0]!, Number(process.argv[gridAt + 1]))
      : LEVELS.flatMap((levelDb) =>
          REVERBS.flatMap((reverb) =>
            OVERDRIVE.map((overdrive) => ({ levelDb, acoustics: { delayS: DELAY_S, reverb, overdrive } })),
          ),
        );
  const first = rooms[0]!;
  const room = await openRoom({ ...first.acoustics, gainDb: echoGainDb(first.acoustics, first.levelDb) }, TUNABLES);
  const rows: RoomRow[] = [];
  const frames: { room: number; reply: 'silent' | 'over' | 'backchannel'; frames: GateFrames }[] = [];
  /** Per reply: the microphone beside the reference (bench/echo/room-offline.ts runs the canceller on them). */
  const echo: ({ room: number; reply: 'silent' | 'over' | 'backchannel'; voiceWallAt?: number } & EchoRecordingTake)[] = [];
  const record = async (n: number, kind: 'silent' | 'over' | 'backchannel', since: number, voiceWallAt?: number) =>
    echo.push({
      room: n,
      reply: kind,
      ...(voiceWallAt === undefined ? {} : { voiceWallAt }),
      ...(await takeEchoRecording(room.panel, (Date.now() - since) / 1000)),
    });
  const startedAt = Date.now();
  // A failure in one room (the browser lost its page, a message went unanswered) ends the sweep, but the rooms done
  // so far are still written, marked incomplete.
  let stoppedBy: string | undefined;
  try {
    for (const [n, r] of rooms.entries()) {
      try {
        await room.rig.setRoom({ ...r.acoustics, gainDb: echoGainDb(r.acoustics, r.levelDb) });
        const from = Date.now();
        const silent = await reply(room, undefined, ECHO_AS_REPLY);
        frames.push({ room: n, reply: 'silent', frames: await takeGateFrames(room.panel) });
        await record(n, 'silent', from);
        const overFrom = Date.now();
        const echoLevelDb = db(activeRms(room.room.between(from, Date.now()))) - db(userRms());
        const over = await reply(
          room,
          {
            wav: userPhrase(n % INTERRUPTIONS.length),
            afterMs: 2500,
            ...(HEARD_AS_SAID ? { heardAs: INTERRUPTIONS[n % INTERRUPTIONS.length]! } : {}),
          },
          ECHO_AS_REPLY,
        );
        frames.push({ room: n, reply: 'over', frames: await takeGateFrames(room.panel) });
        await record(n, 'over', overFrom, over.interrupted?.voiceWallAt);
        const backchannelFrom = Date.now();
        const backchannel = await reply(
          room,
          {
            wav: backchannelPhrase(n),
            afterMs: 2500,
            kind: 'backchannel',
            text: BACKCHANNELS[n % BACKCHANNELS.length]!,
            ...(HEARD_AS_SAID ? { heardAs: BACKCHANNELS_HEARD_AS[n % BACKCHANNELS.length]! } : {}),
          },
          ECHO_AS_REPLY,
        );
        frames.push({ room: n, reply: 'backchannel', frames: await takeGateFrames(room.panel) });
        await record(n, 'backchannel', backchannelFrom);
        rows.push({ ...r, roomDelayMs: room.rig.roomDelayMs, echoLevelDb, silent, over, backchannel });
        console.error(
          `${((Date.now() - startedAt) / 1000).toFixed(0)} s: level ${r.levelDb} reverb ${r.acoustics.reverb} overdrive ${r.acoustics.overdrive}: ` +
            JSON.stringify({ echoLevelDb: echoLevelDb.toFixed(1), silent, over, backchannel }),
        );
      } catch (e) {
        stoppedBy = `level ${r.levelDb} reverb ${r.acoustics.reverb} overdrive ${r.acoustics.overdrive}: ${e instanceof Error ? e.message : String(e)}`;
        console.error(e);
        break;
      }
    }
  } finally {
    await room.close();
  }
  const summary = summarise(rows);
  const meta = {
    date: new Date().toISOString().slice(0, 10),
    machine: `${cpus().length} × ${cpus()[0]?.model ?? '?'} (shared with other builds)`,
    rig:
      ROOM_PATH === 'server'
        ? `PulseAudio, the room as LADSPA sinks in the server (tests/room/room-chain.ts); user phrases peak ${-6} dBFS`
        : `PulseAudio null sinks; room = sox delay ${DELAY_S} s [reverb R] [overdrive D] gain G; user phrases peak ${-6} dBFS`,
    ...(gridAt >= 0 ? { grid: rooms } : {}),
    wallSeconds: Math.round((Date.now() - startedAt) / 1000),
    tunables: TUNABLES,
    ...(stoppedBy ? { incomplete: `${rows.length} of ${rooms.length} rooms; stopped at ${stoppedBy}` } : {}),
    command:
      `npx jiti bench/room/run.ts --levels ${LEVELS.join(',')} --reverbs ${REVERBS.join(',')} --overdrive ${OVERDRIVE.join(',')}` +
      (tunablesAt >= 0 ? ` --tunables ${process.argv[tunablesAt + 1]}` : '') +
      (HEARD_AS_SAID ? ' --heard-as-said' : '') +
      (ECHO_AS_REPLY.echoHeardAsReply ? ' --echo-heard-as-reply' : '') +
      (gridAt >= 0 ? ` --grid ${process.argv[gridAt + 1]} --seed ${arg('seed', '50')[0]}` : ''),
  };
  const md = markdown(summary, rows, meta);
  console.log(md);
  if (OUT) {
    writeFileSync(`${OUT}.json`, `${JSON.stringify({ meta, summary, rows }, null, 1)}\n`);
    writeFileSync(`${OUT}.md`, md);
    // About 2 MB a sweep as JSON, a quarter of that compressed.
    writeFileSync(`${OUT}-frames.json.gz`, gzipSync(`${JSON.stringify(frames)}\n`));
    writeFileSync(`${OUT}-echo.json.gz`, gzipSync(`${JSON.stringify({ rooms, echo })}\n`));
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
