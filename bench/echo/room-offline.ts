/**
 * The echo canceller (core/echo) on real browser audio: the room sweep's recordings (bench/room/run.ts writes
 * `<out>-echo.json.gz`: per reply, the microphone as the engine got it, after Chrome's canceller, beside what the
 * speakers played over the same samples). Per reply a fresh canceller runs over the recording frame by frame, as it
 * would on the offscreen document's frames. Reported (docs/echo-canceller.md, "On real browser audio"):
 *   - replies with the user silent: the echo left at the microphone (dB under the user's voice level, the rig's
 *     `userRms`) and the canceller's ERLE over the frames where the reference played, after its first second;
 *   - replies the user talked over: the voice's first second over the 1.5 s of echo before it, on the microphone
 *     and on the canceller's output (how far above the echo a detector would see the voice);
 *   - the bulk delay the canceller settled on, and where the echo really sits against the reference: GCC-PHAT over
 *     every lag, 2 s of microphone against the reference from 1 s before to 1 s after, in each 2 s window where the
 *     reference played (a peak under `MIN_SCORE` is not counted), and how far the frames' capture times drift from
 *     their sample count (the microphone's samples are contiguous; their times are estimates).
 * Run: npx jiti bench/echo/room-offline.ts bench/results/<sweep> [--out bench/results/<name>]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { EchoCanceller } from '../../core/echo/echo-canceller';
import { matchEcho } from '../../core/engine/echo-match';
import { db, userRms } from '../../tests/room/levels';

const FRAME = 512;
const FRAME_MS = 32;
const RATE = 16_000;
/** A GCC-PHAT peak this many spreads over the median is an echo found (echo-match.ts's scale). */
const MIN_SCORE = 30;

interface Recording {
  room: number;
  reply: 'silent' | 'over' | 'backchannel';
  voiceWallAt?: number;
  firstWallAt: number;
  frameWallAt: number[];
  mic: string;
  reference: string;
}

const decode = (b64: string) => {
  const bytes = Buffer.from(b64, 'base64');
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
};
const energy = (x: Float32Array) => x.reduce((a, v) => a + v * v, 0);
const pct = (xs: number[], p: number) => {
  const s = [...xs].filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))]! : Number.NaN;
};
const r1 = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? null : Math.round(v * 10) / 10);

function run(rec: Recording) {
  const mic = decode(rec.mic);
  const ref = decode(rec.reference);
  const aec = new EchoCanceller();
  const frames: { mic: Float32Array; out: Float32Array; refActive: boolean; delayMs: number }[] = [];
  for (let i = 0; i + FRAME <= mic.length; i += FRAME) {
    const m = mic.subarray(i, i + FRAME);
    const r = ref.subarray(i, i + FRAME);
    const { out, stats } = aec.process(m, r);
    frames.push({ mic: m, out, refActive: Math.sqrt(energy(r) / FRAME) > 1e-3, delayMs: stats.delayMs });
  }
  const sum = (from: number, to: number, pick: (f: (typeof frames)[number]) => Float32Array, onlyRef = false) =>
    frames.slice(Math.max(0, from), Math.max(0, to)).reduce((a, f) => a + (onlyRef && !f.refActive ? 0 : energy(pick(f))), 0);
  const settled = Math.round(1000 / FRAME_MS);
  const lags: number[] = [];
  for (let s = RATE; s + 2 * RATE <= mic.length; s += 2 * RATE) {
    const r = ref.subarray(s - RATE, s + 3 * RATE);
    if (Math.sqrt(energy(r) / r.length) < 1e-3) continue;
    const m = matchEcho(mic.subarray(s, s + 2 * RATE), r);
    if (m && m.score >= MIN_SCORE) lags.push(Math.round((m.atSeconds - 1) * 1000));
  }
  const drift = rec.frameWallAt.map((t, i) => t - rec.firstWallAt - i * FRAME_MS);
  const refFrames = frames.filter((f) => f.refActive).length;
  const base = {
    room: rec.room,
    reply: rec.reply,
    seconds: r1((frames.length * FRAME_MS) / 1000),
    referenceSeconds: r1((refFrames * FRAME_MS) / 1000),
    delayMs: frames.at(-1)?.delayMs ?? null,
    /** Where the echo sat against the reference's time (ms; positive: after it), per window that found it. */
    echoLagMs: lags,
    /** The last frame's capture time minus what its sample count says (ms). */
    clockDriftMs: Math.round(drift.at(-1) ?? 0),
  };
  if (rec.reply === 'silent') {
    const micE = sum(settled, frames.length, (f) => f.mic, true);
    const outE = sum(settled, frames.length, (f) => f.out, true);
    const active = frames.slice(settled).filter((f) => f.refActive);
    const echoRms = Math.sqrt(micE / Math.max(1, active.length * FRAME));
    return {
      ...base,
      echoUnderUserDb: r1(db(echoRms) - db(userRms())),
      erleDb: r1(10 * Math.log10(micE / Math.max(outE, 1e-12))),
    };
  }
  if (rec.reply === 'over' && rec.voiceWallAt !== undefined) {
    // The frame captured nearest the voice's arrival: capture times, not the sample count, place it (the rig's
    // voice onset shows where they say; the count runs behind them: docs/echo-canceller.md).
    let k = 0;
    rec.frameWallAt.forEach((t, i) => {
      if (Math.abs(t - rec.voiceWallAt!) < Math.abs(rec.frameWallAt[k]! - rec.voiceWallAt!)) k = i;
    });
    const voice = [k, k + Math.round(1000 / FRAME_MS)] as const;
    const echo = [k - Math.round(1500 / FRAME_MS), k - 3] as const;
    const ratio = (pick: (f: (typeof frames)[number]) => Float32Array) => {
      const v = sum(voice[0], voice[1], pick) / (voice[1] - voice[0]);
      const e = sum(echo[0], echo[1], pick) / (echo[1] - echo[0]);
      return 10 * Math.log10(v / Math.max(e, 1e-12));
    };
    if (k <= 0 || k >= frames.length) return { ...base, voiceOutside: true };
    return { ...base, voiceOverEchoMicDb: r1(ratio((f) => f.mic)), voiceOverEchoOutDb: r1(ratio((f) => f.out)) };
  }
  return base;
}

function main(): void {
  const base = process.argv[2];
  if (!base) throw new Error('usage: npx jiti bench/echo/room-offline.ts <sweep base> [--out <file base>]');
  const outAt = process.argv.indexOf('--out');
  const { echo } = JSON.parse(gunzipSync(readFileSync(`${base}-echo.json.gz`)).toString('utf8')) as { echo: Recording[] };
  const rows = echo.map(run);
  const silent = rows.filter((r) => r.reply === 'silent') as { erleDb: number | null; echoUnderUserDb: number | null }[];
  const over = rows.filter((r) => r.reply === 'over' && 'voiceOverEchoMicDb' in r) as {
    voiceOverEchoMicDb: number | null;
    voiceOverEchoOutDb: number | null;
  }[];
  const three = (xs: (number | null)[]) =>
    [0.1, 0.5, 0.9]
      .map((p) =>
        r1(
          pct(
            xs.map((x) => x ?? Number.NaN),
            p,
          ),
        ),
      )
      .join(' / ');
  const allLags = rows.flatMap((r) => r.echoLagMs);
  const windows = rows.map((r) => r.echoLagMs.length);
  const summary = {
    recordings: rows.length,
    echoLagMs: three(allLags),
    echoFoundWindows: windows.reduce((a, b) => a + b, 0),
    clockDriftMs: three(rows.map((r) => r.clockDriftMs)),
    silentErleDb: three(silent.map((r) => r.erleDb)),
    silentEchoUnderUserDb: three(silent.map((r) => r.echoUnderUserDb)),
    voiceOverEchoMicDb: three(over.map((r) => r.voiceOverEchoMicDb)),
    voiceOverEchoOutDb: three(over.map((r) => r.voiceOverEchoOutDb)),
  };
  const md = [
    `# The echo canceller on the room sweep's recordings (${base})`,
    '',
    '| p10 / p50 / p90 | value |',
    '|---|---|',
    `| silent replies (${silent.length}): echo at the microphone under the user's level, dB | ${summary.silentEchoUnderUserDb} |`,
    `| silent replies: the canceller's ERLE after its first second, dB | ${summary.silentErleDb} |`,
    `| talked-over replies (${over.length}): voice over the echo before it, microphone, dB | ${summary.voiceOverEchoMicDb} |`,
    `| talked-over replies: voice over the echo before it, canceller's output, dB | ${summary.voiceOverEchoOutDb} |`,
    `| where the echo sat against the reference's time, ms (${summary.echoFoundWindows} windows with a peak ≥ ${MIN_SCORE}) | ${summary.echoLagMs} |`,
    `| capture times' drift from the sample count over a recording, ms | ${summary.clockDriftMs} |`,
    '',
    '| room | reply | s | reference s | delay ms | echo under user dB | ERLE dB | voice/echo mic dB | voice/echo out dB | echo lags ms | drift ms |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => {
      const x = r as Record<string, unknown>;
      const f = (k: string) => (x[k] === undefined || x[k] === null ? '' : String(x[k]));
      return `| ${r.room} | ${r.reply} | ${f('seconds')} | ${f('referenceSeconds')} | ${f('delayMs')} | ${f('echoUnderUserDb')} | ${f('erleDb')} | ${f('voiceOverEchoMicDb')} | ${f('voiceOverEchoOutDb')} | ${r.echoLagMs.join(' ')} | ${r.clockDriftMs} |`;
    }),
    '',
  ].join('\n');
  console.log(md);
  if (outAt >= 0) {
    const out = process.argv[outAt + 1]!;
    writeFileSync(`${out}.json`, `${JSON.stringify({ source: base, summary, rows }, null, 1)}\n`);
    writeFileSync(`${out}.md`, md);
  }
}

main();
