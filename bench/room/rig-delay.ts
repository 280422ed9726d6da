/**
 * How the room rig's own delay moves during a run: the speakers' and the room's recordings that `ROOM_DUMP=1` leaves
 * in tests/artifacts (tests/room/session.ts), each cut into 10 ms RMS envelopes, correlated in 4 s windows over lags
 * of 0–2 s. A physical room's delay is fixed; a window whose best lag differs from the first one's is the rig's
 * pipeline (docs/benchmarks.md, "The rig's delay").
 *
 *   ROOM_DUMP=1 flock /tmp/sidetalk-e2e.lock npx jiti bench/room/run.ts --levels -10 --reverbs 80 --overdrive 0 --out /tmp/room
 *   npx jiti bench/room/rig-delay.ts [tests/artifacts]
 *
 * Only the windows before the first user phrase are meaningful (the voice is in the room's recording, not the
 * speakers'); the room's marks (room-marks.json) are not read, so the printout runs to the end of the take.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RIG_RATE } from '../../tests/room/rig';
import { windowPower } from '../../tests/room/signal';

const ENV_MS = 10;
const WINDOW = 400; // envelope frames: 4 s
const MAX_LAG = 200; // 2 s

const dir = process.argv[2] ?? 'tests/artifacts';

/** The newest dump of one recording: its samples and the wall time of its first sample. */
function newest(name: string): { samples: Float32Array; startedAt: number } {
  const files = readdirSync(dir).filter((f) => f.startsWith(`room-${name}-`) && f.endsWith('.f32'));
  const file = files.sort().at(-1);
  if (!file) throw new Error(`no room-${name}-*.f32 in ${dir}: run the sweep with ROOM_DUMP=1 first`);
  const bytes = readFileSync(join(dir, file));
  const samples = new Float32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 4));
  return { samples, startedAt: Number(file.slice(`room-${name}-`.length, -'.f32'.length)) };
}

/** 10 ms RMS levels of `x` from sample `from` on. */
function envelope(x: Float32Array, from: number): number[] {
  return windowPower(x.subarray(from), ENV_MS).map(Math.sqrt);
}

function pearson(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i]!;
    mb += b[i]!;
  }
  ma /= n;
  mb /= n;
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i]! - ma;
    const y = b[i]! - mb;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  return aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : 0;
}

const speakers = newest('speakers');
const room = newest('room');
// Both envelopes from the same wall time.
const start = Math.max(speakers.startedAt, room.startedAt);
const s = envelope(speakers.samples, Math.round(((start - speakers.startedAt) / 1000) * RIG_RATE));
const r = envelope(room.samples, Math.round(((start - room.startedAt) / 1000) * RIG_RATE));
const rows: { atS: number; lagMs: number; r: number }[] = [];
for (let w = 0; w + WINDOW + MAX_LAG < Math.min(s.length, r.length); w += WINDOW) {
  const a = s.slice(w, w + WINDOW);
  let best = { lag: 0, r: -1 };
  for (let lag = 0; lag <= MAX_LAG; lag++) {
    const c = pearson(a, r.slice(w + lag, w + lag + WINDOW));
    if (c > best.r) best = { lag, r: c };
  }
  rows.push({ atS: (w * ENV_MS) / 1000, lagMs: best.lag * ENV_MS, r: Math.round(best.r * 100) / 100 });
}
console.log(JSON.stringify({ dir, windows: rows }, null, 1));
