/**
 * How still the room rig's echo path holds (issue 50, docs/benchmarks.md "The rig's delay"), no browser: a seeded
 * probe (white noise keyed on and off in 20 ms chips) is played into the speakers while the speakers' monitor and
 * the microphone are recorded; the speakers → microphone lag is found per 1 s window (1 ms envelopes, then the
 * samples within ±2 ms). A physical room's lag does not move; the spread is the rig's.
 *
 *   [ROOM_PATH=pipes] npx jiti bench/room/rig-clock.ts [--seconds 120] [--load 2] [--delay 0.04] [--reverb 0] [--out f.json]
 *
 * `--load N` runs `stress-ng --cpu N` meanwhile (apt package stress-ng; the box's other work comes on top: the 1-min
 * load is reported). The lag's absolute value carries the two recordings' wall-clock placement (±5 ms); the rig's own
 * measurement at start (`roomDelayMs`: two tones in one recording on the pipes path, this probe on the server path)
 * is printed beside it. No browser runs here, so no lock.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { RIG_RATE, ROOM_PATH, startRig, type Acoustics } from '../../tests/room/rig';
import { MAX_LAG_MS, probe, windowLags } from '../../tests/room/clock-lag';
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
    const play = spawn(
      'pacat',
      ['-d', 'speakers', '--playback', '--raw', '--format=float32le', `--rate=${RIG_RATE}`, '--channels=1', file],
      {
        env: rig.env,
        stdio: 'ignore',
      },
    );
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
      roomDelayMsAtStart: Math.round(rig.roomDelayMs * 10) / 10, // the rig's own measure: tones (pipes), the probe (server)
      windows: rows.length,
      found: lags.length,
      lagMs: { p10: q(0.1), p50: q(0.5), p90: q(0.9), min: Math.min(...lags), max: Math.max(...lags) },
      spreadMs: {
        p90MinusP10: Math.round((q(0.9) - q(0.1)) * 10) / 10,
        maxMinusMin: Math.round((Math.max(...lags) - Math.min(...lags)) * 10) / 10,
      },
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
