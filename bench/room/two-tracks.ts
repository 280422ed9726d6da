/**
 * Can one document hold a processed and an unprocessed track of the same microphone (docs/echo.md, "The unprocessed
 * microphone")? On the room rig (tests/room/rig.ts), one page plays speech through Web Audio in a loop while another
 * captures the microphone twice, with `echoCancellation` true and false, and prints both tracks' 32 ms levels.
 *
 *   flock /tmp/sidetalk-e2e.lock npx jiti bench/room/two-tracks.ts both     # reply playing, user speaks at 7 s
 *   flock /tmp/sidetalk-e2e.lock npx jiti bench/room/two-tracks.ts cycle-raw # both tracks stopped and reopened 4 times
 *   flock /tmp/sidetalk-e2e.lock npx jiti bench/room/two-tracks.ts cycle     # the same with the processed track alone
 *
 * The cycle modes print the room's level after each reopening (the room must keep running).
 */
import { createServer } from 'node:http';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { chromium, type Page } from 'playwright-core';
import { startRig } from '../../tests/room/rig';
import { userPhrase } from '../../tests/room/speech';
import { echoGainDb } from '../../tests/room/levels';

const ROOM = { delayS: 0.04, reverb: 50, overdrive: 3 };

/** The page's helpers (defined in `html`). */
interface ProbeWindow {
  RAW: boolean;
  play(): Promise<string>;
  cycle(): Promise<void>;
  capture(ms: number): Promise<{ aec: number[]; raw: number[]; settings: MediaTrackSettings[] }>;
}
const call = <T>(page: Page, fn: (w: ProbeWindow) => Promise<T> | T) => page.evaluate(`(${fn.toString()})(window)`) as Promise<T>;
const html = `<!doctype html><body><script>
window.play = async () => {
  const ctx = new AudioContext();
  const buf = await (await fetch('/a.wav')).arrayBuffer();
  const ab = await ctx.decodeAudioData(buf);
  const src = ctx.createBufferSource(); src.buffer = ab; src.loop = true; src.connect(ctx.destination); src.start();
  return ctx.state;
};
window.cycle = async () => {
  const c = { channelCount: 1, noiseSuppression: false, autoGainControl: false };
  const s1 = await navigator.mediaDevices.getUserMedia({ audio: { ...c, echoCancellation: true } });
  const s2 = window.RAW ? await navigator.mediaDevices.getUserMedia({ audio: { ...c, echoCancellation: false } }) : null;
  await new Promise((r) => setTimeout(r, 3000));
  s1.getTracks().forEach((t) => t.stop()); if (s2) s2.getTracks().forEach((t) => t.stop());
  await new Promise((r) => setTimeout(r, 300));
};
window.capture = async (ms) => {
  const c = { channelCount: 1, noiseSuppression: false, autoGainControl: false };
  const s1 = await navigator.mediaDevices.getUserMedia({ audio: { ...c, echoCancellation: true } });
  const s2 = await navigator.mediaDevices.getUserMedia({ audio: { ...c, echoCancellation: false } });
  const ctx = new AudioContext();
  const mk = (s) => { const a = ctx.createAnalyser(); a.fftSize = 2048; ctx.createMediaStreamSource(s).connect(a); return a; };
  const a1 = mk(s1), a2 = mk(s2);
  const b = new Float32Array(1536);
  const r = (a) => { a.getFloatTimeDomainData(b); let q = 0; for (const x of b) q += x * x; return Math.sqrt(q / b.length); };
  const out = { aec: [], raw: [], settings: [s1.getAudioTracks()[0].getSettings(), s2.getAudioTracks()[0].getSettings()] };
  const t0 = performance.now();
  while (performance.now() - t0 < ms) { out.aec.push(r(a1)); out.raw.push(r(a2)); await new Promise((res) => setTimeout(res, 32)); }
  return out;
};
</script></body>`;
async function main() {
  mkdirSync('/tmp/sidetalk-two-tracks', { recursive: true });
  execFileSync('espeak-ng', [
    '-v',
    'en-gb',
    '-s',
    '165',
    '-w',
    '/tmp/sidetalk-two-tracks/a.wav',
    'Once upon a time there was a lighthouse keeper who lived alone on a rocky island far out at sea, and every night he climbed the long stairs to light the great lamp.',
  ]);
  const server = createServer((req, res) => {
    if (req.url === '/a.wav') {
      res.setHeader('content-type', 'audio/wav');
      res.end(readFileSync('/tmp/sidetalk-two-tracks/a.wav'));
    } else {
      res.setHeader('content-type', 'text/html');
      res.end(html);
    }
  }).listen(0);
  const port = (server.address() as { port: number }).port;
  const rig = await startRig({ ...ROOM, gainDb: echoGainDb(ROOM, -10) });
  const ctx = await chromium.launchPersistentContext('/tmp/sidetalk-two-tracks/profile-' + Date.now(), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--use-fake-ui-for-media-stream', '--autoplay-policy=no-user-gesture-required', '--no-sandbox'],
    ignoreDefaultArgs: ['--mute-audio'],
    env: { ...process.env, PULSE_SERVER: rig.server },
  });
  const player = await ctx.newPage();
  await player.goto(`http://localhost:${port}/`);
  const capturer = await ctx.newPage();
  await capturer.goto(`http://localhost:${port}/`);
  const mode = process.argv[2] ?? 'both';
  if (mode.startsWith('cycle')) {
    const raw = mode === 'cycle-raw';
    await call(capturer, raw ? (w) => void (w.RAW = true) : (w) => void (w.RAW = false));
    console.log('play', await call(player, (w) => w.play()));
    const rec = rig.record('room.monitor');
    for (let i = 0; i < 4; i++) {
      await call(capturer, (w) => w.cycle());
      await new Promise((r) => setTimeout(r, 300));
      const x = rec.newest(1000);
      let q = 0;
      for (const v of x) q += v * v;
      console.log('cycle', i, 'room rms', Math.sqrt(q / Math.max(1, x.length)).toFixed(4));
    }
    rec.stop();
    await ctx.close();
    server.close();
    await rig.close();
    return;
  }
  if (mode !== 'voice') console.log('play', await call(player, (w) => w.play()));
  const cap = call(capturer, (w) => w.capture(14000));
  await new Promise((r) => setTimeout(r, 7000));
  if (mode !== 'echo') await (await rig.say(userPhrase(0))).done;
  const out = await cap;
  writeFileSync(`/tmp/sidetalk-two-tracks/out-${mode}.json`, JSON.stringify(out));
  const f = (xs: number[]) => xs.map((x) => Math.round(x * 1000)).join(' ');
  console.log('settings', JSON.stringify(out.settings.map((t) => t.echoCancellation)));
  console.log('aec', f(out.aec));
  console.log('raw', f(out.raw));
  await ctx.close();
  server.close();
  await rig.close();
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
