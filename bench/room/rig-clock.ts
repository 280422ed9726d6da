/**
 * How still the room rig's echo path holds (issue 50, docs/benchmarks.md "The rig's delay"), no browser: a seeded
 * probe (white noise keyed on and off in 20 ms chips) is played into the speakers while the speakers' monitor and
 * the microphone are recorded; the speakers → microphone lag is found per 1 s window (1 ms envelopes, then the
 * samples within ±2 ms). A physical room's lag does not move; the spread is the rig's.
 *
 *   [ROOM_PATH=pipes] npx jiti bench/room/rig-clock.ts [--seconds 120] [--load 2] [--delay 0.04] [--reverb 0] [--out f.json]
 *
 * `--load N` runs `stress-ng --cpu N` meanwhile (the box's other work comes on top: the 1-min load is reported).
 * The lag's absolute value carries the two recordings' start offset (their wall-clock placement, a few ms); the
 * rig's own tone measurement (`roomDelayMs`, one recording) is printed beside it. No room test runs here, so no lock.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { RIG_RATE, ROOM_PATH, startRig, type Acoustics } from '../../tests/room/rig';
import { quantile } from './report';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const SECONDS = Number(arg('seconds', '120'));
const LOAD = Number(arg('load', '0'));
const OUT = arg('out', '');
/**
 * The room test's room (tests/room/talk-over.room.ts) at unity gain, without its reverb by default: the reverb's
 * echoes (allpass sections 30–44 ms apart) are as strong as the direct path in 1 s of noise, so the lag would jump
 * between them (`--reverb 50` shows it).
 */
const ROOM: Acoustics = { delayS: Number(arg('delay', '0.04')), reverb: Number(arg('reverb', '0')), overdrive: 3, gainDb: 0 };
const WINDOW_MS = 1000;
const MAX_LAG_MS = 1500;
const MIN_CORRELATION = 0.3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Seeded noise in 20 ms chips, each on or off. */
function probe(seconds: number, seed = 50): Float32Array {
  let x = seed;
  const rand = () => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const chip = RIG_RATE / 50;
  const out = new Float32Array(seconds * RIG_RATE);
  let on = true;
  for (let i = 0; i < out.length; i++) {
    if (i % chip === 0) on = rand() < 0.5;
    out[i] = on ? (rand() * 2 - 1) * 0.3 : 0;
  }
  return out;
}

function envelope(s: Float32Array): Float32Array {
  const w = RIG_RATE / 1000;
  const e = new Float32Array(Math.floor(s.length / w));
  for (let i = 0; i < e.length; i++) {
    let sum = 0;
    for (let j = i * w; j < (i + 1) * w; j++) sum += Math.abs(s[j]!);
    e[i] = sum / w;
  }
  return e;
}

function correlation(a: Float32Array, b: Float32Array, at: number, n: number, lag: number): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[at + i]!;
    mb += b[at + lag + i]!;
  }
  ma /= n;
  mb /= n;
  for (let i = 0; i < n; i++) {
    const x = a[at + i]! - ma;
    const y = b[at + lag + i]! - mb;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  return aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : 0;
}

/** The speakers → microphone lag (ms) per window, null where the probe was not found. */
export function windowLags(speakers: Float32Array, mic: Float32Array): { atS: number; lagMs: number | null; r: number }[] {
  const es = envelope(speakers);
  const em = envelope(mic);
  const rows: { atS: number; lagMs: number | null; r: number }[] = [];
  for (let w = 0; w + WINDOW_MS + MAX_LAG_MS <= Math.min(es.length, em.length); w += WINDOW_MS) {
    let best = { lag: 0, r: -1 };
    for (let lag = 0; lag <= MAX_LAG_MS; lag++) {
      const r = correlation(es, em, w, WINDOW_MS, lag);
      if (r > best.r) best = { lag, r };
    }
    if (best.r < MIN_CORRELATION) {
      rows.push({ atS: w / 1000, lagMs: null, r: best.r });
      continue;
    }
    // The samples around the envelope's lag: the exact one.
    const k = RIG_RATE / 1000;
    let fine = { lag: best.lag * k, r: -1 };
    for (let lag = Math.max(0, (best.lag - 2) * k); lag <= (best.lag + 2) * k; lag++) {
      const r = Math.abs(correlation(speakers, mic, w * k, WINDOW_MS * k, lag));
      if (r > fine.r) fine = { lag, r };
    }
    rows.push({ atS: w / 1000, lagMs: Math.round((fine.lag / k) * 100) / 100, r: Math.round(best.r * 100) / 100 });
  }
  return rows;
}

async function main(): Promise<void> {
  const hog = LOAD > 0 ? spawn('stress-ng', ['--cpu', String(LOAD), '--timeout', `${SECONDS + 30}s`], { stdio: 'ignore' }) : null;
  const loads: number[] = [];
  const rig = await startRig(ROOM);
  try {
    const file = join(tmpdir(), `sidetalk-rig-clock-${process.pid}.f32`);
    writeFileSync(file, probe(SECONDS));
    const speakers = rig.record('speakers.monitor');
    const mic = rig.record('room.monitor');
    await sleep(500);
    const play = spawn('pacat', ['-d', 'speakers', '--playback', '--raw', '--format=float32le', `--rate=${RIG_RATE}`, '--channels=1', file], {
      env: rig.env,
      stdio: 'ignore',
    });
    const sampler = setInterval(() => loads.push(loadavg()[0]!), 5000);
    await new Promise((r) => play.once('exit', r));
    clearInterval(sampler);
    await sleep(MAX_LAG_MS + 500);
    speakers.stop();
    mic.stop();
    // Both recordings from the same wall time.
    const start = Math.max(speakers.startedAt, mic.startedAt);
    const cut = (rec: typeof speakers) => rec.samples().subarray(Math.round(((start - rec.startedAt) / 1000) * RIG_RATE));
    const rows = windowLags(cut(speakers), cut(mic));
    const lags = rows.map((r) => r.lagMs).filter((v): v is number => v !== null);
    const q = (p: number) => Math.round((quantile(lags, p) ?? NaN) * 10) / 10;
    const result = {
      path: ROOM_PATH,
      room: ROOM,
      seconds: SECONDS,
      stressNgCpu: LOAD,
      load1: { min: Math.min(...loads), max: Math.max(...loads) },
      roomDelayMsAtStart: Math.round(rig.roomDelayMs * 10) / 10,
      windows: rows.length,
      found: lags.length,
      lagMs: { p10: q(0.1), p50: q(0.5), p90: q(0.9), min: Math.min(...lags), max: Math.max(...lags) },
      spreadMs: { p90MinusP10: Math.round((q(0.9) - q(0.1)) * 10) / 10, maxMinusMin: Math.round((Math.max(...lags) - Math.min(...lags)) * 10) / 10 },
      rows,
    };
    const { rows: _rows, ...summary } = result;
    console.log(JSON.stringify(summary, null, 1));
    if (OUT) writeFileSync(OUT, `${JSON.stringify(result, null, 1)}\n`);
  } finally {
    await rig.close();
    hog?.kill();
  }
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
