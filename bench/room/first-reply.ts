/**
 * The session's first reply in a loud room (docs/echo.md, "The first reply in a loud room"), A against B: each run
 * opens a fresh session in the room test's room (speakers 10 dB under the user, reverb, overdrive) and plays one reply
 * with the user silent, alternately with `engine.bargeFirstReplyCrossCheck` on and off. Reported per arm: replies held
 * (a duck) or cut while nobody spoke, and the processed gate's longest run of barge candidates (`bargeFrames` holds
 * the reply), from the reply's `echo-path` trace.
 *
 * Run (2 shared cores: take the e2e lock; ~40 s a session):
 *   flock /tmp/sidetalk-e2e.lock bash -c 'npm run build:test && npx jiti bench/room/first-reply.ts --pairs 6 --out bench/results/<date>-first-reply'
 */
import { writeFileSync } from 'node:fs';
import { engineMarks } from '../../tests/e2e/harness';
import { echoGainDb } from '../../tests/room/levels';
import { openRoom, reply } from '../../tests/room/session';

const ROOM = { delayS: 0.04, reverb: 50, overdrive: 3 };
const LEVEL_DB = -10;
const pairsAt = process.argv.indexOf('--pairs');
const PAIRS = pairsAt >= 0 ? Number(process.argv[pairsAt + 1]) : 6;
const outAt = process.argv.indexOf('--out');
const OUT = outAt >= 0 ? process.argv[outAt + 1] : undefined;

interface Run {
  check: number;
  falseDucks: number;
  falseBargeIns: number;
  phantomTurns: number;
  longestRun: number | null;
  overGateFrames: number | null;
  residualPeakRms: number;
}

async function once(check: number): Promise<Run> {
  const room = await openRoom({ ...ROOM, gainDb: echoGainDb(ROOM, LEVEL_DB) }, { 'engine.bargeFirstReplyCrossCheck': check });
  try {
    const r = await reply(room);
    // The newest: a reply marks its path on each drained run, each mark with its counts so far.
    const path = (await engineMarks(room.panel)).filter((m) => m.name === 'echo-path').at(-1)?.fields;
    return {
      check,
      falseDucks: r.falseDucks ?? 0,
      falseBargeIns: r.falseBargeIns,
      phantomTurns: r.phantomTurns ?? 0,
      longestRun: typeof path?.longestRun === 'number' ? path.longestRun : null,
      overGateFrames: typeof path?.overGateFrames === 'number' ? path.overGateFrames : null,
      residualPeakRms: r.residualPeakRms,
    };
  } finally {
    await room.close();
  }
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const runs: Run[] = [];
  for (let i = 0; i < PAIRS; i++) {
    // Alternating which arm goes first: the machine's load drifts over a sweep.
    for (const check of i % 2 === 0 ? [1, 0] : [0, 1]) {
      const run = await once(check);
      runs.push(run);
      console.error(JSON.stringify(run));
    }
  }
  const arm = (check: number) => {
    const rs = runs.filter((r) => r.check === check);
    const sum = (f: (r: Run) => number) => rs.reduce((a, r) => a + f(r), 0);
    return {
      check,
      replies: rs.length,
      heldOrCut: rs.filter((r) => r.falseDucks > 0 || r.falseBargeIns > 0).length,
      falseBargeIns: sum((r) => r.falseBargeIns),
      phantomTurns: sum((r) => r.phantomTurns),
      longestRuns: rs.map((r) => r.longestRun),
    };
  };
  const summary = { on: arm(1), off: arm(0) };
  const meta = {
    date: new Date().toISOString().slice(0, 10),
    room: { ...ROOM, levelDb: LEVEL_DB },
    wallSeconds: Math.round((Date.now() - startedAt) / 1000),
    command: `npx jiti bench/room/first-reply.ts --pairs ${PAIRS}`,
  };
  console.log(JSON.stringify({ meta, summary }, null, 1));
  if (OUT) writeFileSync(`${OUT}.json`, `${JSON.stringify({ meta, summary, runs }, null, 1)}\n`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
