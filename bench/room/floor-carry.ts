/**
 * Whose echo set the gate's floor when the user talked over a reply (docs/echo.md, "The measured floor"): per room of a
 * sweep (run.ts, its `<out>.json`), the floor in force over the talked-over reply beside the floor that room's own
 * silent reply before it would have left alone. A floor carried over from a louder room stands over the voice.
 *
 *   npx jiti bench/room/floor-carry.ts bench/results/2026-12-07-ci-box-room-grid.json
 *
 * The own-room floor is estimated from the silent reply's trace (its loudest sustained level, capped at
 * `residualPeakOverRank` × its fourth loudest window's, the second's where it had fewer than four): the engine takes a
 * lower rank for replies under eight windows, so for short replies the estimate is the larger. Reads JSON only.
 */
import { readFileSync } from 'node:fs';
import { engineTunables as T } from '../../core/tunables';
import type { ReplyResult } from '../../tests/room/results';
import type { RoomRow } from './report';

type Track = '' | 'raw';

/** The level a reply's trace says it taught its track's floor (see the header), or null where that track was not traced. */
function taught(r: ReplyResult, track: Track): number | null {
  const get = (name: 'ResidualRunRms' | 'ResidualRank2Rms' | 'ResidualRank4Rms') =>
    (r as unknown as Record<string, number | undefined>)[track ? `raw${name}` : name[0]!.toLowerCase() + name.slice(1)];
  const run = get('ResidualRunRms');
  if (run === undefined) return null;
  const ranked = (get('ResidualRank4Rms') ?? 0) || (get('ResidualRank2Rms') ?? 0);
  return ranked > 0 ? Math.min(run, T.residualPeakOverRank * ranked) : run;
}

const floorFrom = (level: number) => Math.max(T.bargeLearnedMinRms, T.bargeResidualMargin * level);
const f3 = (x: number | null | undefined) => (x === null || x === undefined ? '–' : x.toFixed(3));

export function floorCarry(rows: RoomRow[]) {
  return rows.map((row, room) => {
    const over = row.over;
    const ownLevel = taught(row.silent, '');
    const ownRawLevel = taught(row.silent, 'raw');
    return {
      room,
      levelDb: row.levelDb,
      missed: over.interrupted ? !over.interrupted.detected : null,
      floor: over.floorRms,
      ownFloor: ownLevel === null ? null : floorFrom(ownLevel),
      rawFloor: over.rawFloorRms,
      ownRawFloor: ownRawLevel === null ? null : floorFrom(ownRawLevel),
    };
  });
}

if (process.argv[1]?.endsWith('floor-carry.ts')) {
  const path = process.argv[2];
  if (!path) throw new Error('usage: floor-carry.ts <sweep>.json');
  const rows = (JSON.parse(readFileSync(path, 'utf8')) as { rows: RoomRow[] }).rows;
  const carried = floorCarry(rows);
  console.log('| room | level dB | interruption | floor (own room) | unprocessed floor (own room) |\n|---|---|---|---|---|');
  for (const c of carried) {
    const what = c.missed === null ? 'none' : c.missed ? 'missed' : 'stopped';
    const raw = `${f3(c.rawFloor)} (${f3(c.ownRawFloor)})`;
    console.log(`| ${c.room} | ${c.levelDb} | ${what} | ${f3(c.floor)} (${f3(c.ownFloor)}) | ${raw} |`);
  }
  const missed = carried.filter((c) => c.missed);
  const high = missed.filter((c) => c.floor !== undefined && c.ownFloor !== null && c.floor >= 2 * c.ownFloor);
  console.log(`\nmissed: ${missed.length}; of which the floor in force was ≥ 2× the room's own: ${high.length}`);
}
