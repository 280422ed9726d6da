/**
 * Avatar numbers in the built extension (headless Chromium, software WebGL): main-thread frame time while idle vs
 * while speaking, mouth changes per second, and the lip-to-audio offset, from the avatar's frame probe. Speech is an
 * espeak-ng sentence sent as 80 ms frames like Pocket TTS output, once ahead of real time (fast TTS) and once slower
 * than real time (WASM TTS on a weak CPU), where playback waits for audio and the lips must wait with it.
 *   npm run build:test && npx jiti bench/avatar/frames.ts      (~1 min; prints JSON and a table, writes bench/out/)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import type { AvatarFrame, AvatarProbeSnapshot } from '../../components/avatar/avatar-probe';
import { resample } from '../../core/tts/wav';
import { SAMPLE_RATE, silence, speech } from '../../tests/fixtures/audio/make-audio';
import { playUtterance, probeSnapshot, startProbe } from '../../tests/e2e/avatar-driver';
import { launchExtension, poll } from '../../tests/e2e/harness';

const SENTENCES = [
  'Maybe bring a jacket: it will be about twelve degrees and windy in Berlin tomorrow.',
  'Tidal pools are rocky pools on the sea shore, filled with seawater at low tide.',
];
const AUDIBLE = 0.01;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))]! : NaN;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const r2 = (x: number) => Math.round(x * 100) / 100;

/** Linear resampling of a frame series onto a 10 ms grid. */
function grid(frames: AvatarFrame[], key: 'mouth' | 'audible', t0: number, t1: number): Float64Array {
  const out = new Float64Array(Math.max(0, Math.floor((t1 - t0) / 10)));
  let j = 0;
  for (let i = 0; i < out.length; i++) {
    const t = t0 + i * 10;
    while (j < frames.length - 2 && frames[j + 1]!.at < t) j++;
    const a = frames[j]!;
    const b = frames[j + 1] ?? a;
    const k = b.at > a.at ? Math.min(1, Math.max(0, (t - a.at) / (b.at - a.at))) : 0;
    out[i] = a[key] * (1 - k) + b[key] * k;
  }
  return out;
}

/** The lag (ms, positive = mouth after audio) with the highest normalised correlation, and that correlation. */
function lipLag(frames: AvatarFrame[]): { lagMs: number; r: number } {
  const loud = frames.filter((f) => f.audible > AUDIBLE);
  if (loud.length < 10) return { lagMs: NaN, r: NaN };
  const t0 = loud[0]!.at - 300;
  const t1 = loud.at(-1)!.at + 300;
  const m = grid(frames, 'mouth', t0, t1);
  const a = grid(frames, 'audible', t0, t1);
  const z = (x: Float64Array) => {
    const mu = mean([...x]);
    const sd = Math.sqrt(mean([...x].map((v) => (v - mu) ** 2))) || 1;
    return x.map((v) => (v - mu) / sd);
  };
  const zm = z(m);
  const za = z(a);
  let best = { lagMs: 0, r: -Infinity };
  for (let lag = -30; lag <= 30; lag++) {
    let s = 0;
    let n = 0;
    for (let i = Math.max(0, lag); i < Math.min(zm.length, za.length + lag); i++) {
      s += zm[i]! * za[i - lag]!;
      n++;
    }
    if (n && s / n > best.r) best = { lagMs: lag * 10, r: s / n };
  }
  return { lagMs: best.lagMs, r: r2(best.r) };
}

/** Mouth shape changes per second of speech: local maxima of the drawn mouth with at least 0.1 of prominence. */
function changesPerSecond(frames: AvatarFrame[]): number {
  const loud = frames.filter((f) => f.audible > AUDIBLE);
  if (loud.length < 2) return NaN;
  const span = frames.filter((f) => f.at >= loud[0]!.at && f.at <= loud.at(-1)!.at);
  let peaks = 0;
  let valley = span[0]!.mouth;
  let rising = false;
  for (let i = 1; i < span.length; i++) {
    const d = span[i]!.mouth - span[i - 1]!.mouth;
    if (d > 0) rising = true;
    if (d < 0 && rising) {
      if (span[i - 1]!.mouth - valley >= 0.1) peaks++;
      rising = false;
      valley = span[i]!.mouth;
    }
    valley = Math.min(valley, span[i]!.mouth);
  }
  return r2((peaks * 1000) / (loud.at(-1)!.at - loud[0]!.at));
}

function frameStats(frames: AvatarFrame[]) {
  const ms = frames.map((f) => f.frameMs);
  const gaps = frames.slice(1).map((f, i) => f.at - frames[i]!.at);
  return { frames: frames.length, p50: r2(pct(ms, 0.5)), p90: r2(pct(ms, 0.9)), mean: r2(mean(ms)), fps: r2(1000 / mean(gaps)) };
}

async function main(): Promise<void> {
  const session = await launchExtension();
  try {
    const panel = await session.openPage('sidepanel.html');
    await panel.setViewportSize({ width: 420, height: 860 });
    await poll(
      () => panel.locator('.sidetalk-avatar').getAttribute('data-status'),
      (s) => s === 'ready',
      90_000,
      250,
    );
    await panel.waitForTimeout(1500);
    await startProbe(panel);
    await panel.waitForTimeout(4000);
    const idle = frameStats((await probeSnapshot(panel)).frames);
    const runs: Array<Record<string, unknown>> = [];
    let turn = 8000;
    for (const speedup of [2, 0.8]) {
      for (const text of SENTENCES) {
        const pcm = Array.from(
          resample(
            new Float32Array([...silence(200), ...speech(text, { wordsPerMinute: 160 }), ...silence(200)]),
            SAMPLE_RATE,
            24000,
          ),
        );
        await startProbe(panel);
        await playUtterance(panel, pcm, text, String(++turn), speedup);
        const snap: AvatarProbeSnapshot = await poll(
          () => probeSnapshot(panel),
          (s) => {
            const last = s.frames.at(-1);
            return !!last && !last.speaking && s.events.some((e) => e.name === 'ended');
          },
          30_000,
          200,
        );
        const speaking = snap.frames.filter((f) => f.speaking);
        const lag = lipLag(snap.frames);
        const outMs = (snap.baseLatency + snap.outputLatency) * 1000;
        runs.push({
          text: text.slice(0, 32),
          speedup,
          audioMs: Math.round((pcm.length / 24000) * 1000),
          speaking: frameStats(speaking),
          mouthChangesPerSec: changesPerSecond(snap.frames),
          lipLagAtAnalyserMs: lag.lagMs,
          correlation: lag.r,
          outputLatencyMs: r2(outMs),
          lipToHeardAudioMs: Math.round(lag.lagMs - outMs),
        });
      }
    }
    const speak = runs.map((r) => r.speaking as ReturnType<typeof frameStats>);
    const result = {
      bench: 'avatar-frames',
      chromium: await panel.evaluate(() => navigator.userAgent),
      idle,
      runs,
      ratio: {
        speakingOverIdleP50: r2(mean(speak.map((s) => s.p50)) / idle.p50),
        speakingOverIdleMean: r2(mean(speak.map((s) => s.mean)) / idle.mean),
      },
    };
    mkdirSync('bench/out', { recursive: true });
    writeFileSync('bench/out/avatar-frames.json', JSON.stringify(result, null, 2));
    console.log(JSON.stringify(result));
    console.log(`\nidle: ${idle.fps} fps, frame ${idle.p50} ms p50 / ${idle.p90} ms p90`);
    console.log(
      `speaking/idle frame time: ${result.ratio.speakingOverIdleP50}× (p50), ${result.ratio.speakingOverIdleMean}× (mean)\n`,
    );
    console.log(
      '| sentence | TTS pace | fps | frame p50/p90 ms | mouth changes/s | lip − analyser ms (r) | lip − heard ms |\n|---|---|---|---|---|---|---|',
    );
    for (const r of runs) {
      const s = r.speaking as ReturnType<typeof frameStats>;
      console.log(
        `| ${r.text}… | ${r.speedup}× real time | ${s.fps} | ${s.p50}/${s.p90} | ${r.mouthChangesPerSec} | ${r.lipLagAtAnalyserMs} (${r.correlation}) | ${r.lipToHeardAudioMs} |`,
      );
    }
  } finally {
    await session.close();
  }
}

void main();
