/**
 * The room rig's own latencies (docs/benchmarks.md, "What the rig itself takes"): how long a sound played into the
 * room takes to reach a page's microphone frames, and how long a sound a page schedules takes to reach the speakers.
 * Neither depends on Sidetalk; they are the floor under the sweep's "voice → speakers silent".
 *
 *   npm run build:test && flock /tmp/sidetalk-e2e.lock npx jiti bench/room/rig-latency.ts [--takes 12] [--out file.json]
 *
 * Capture: the rig plays a 30 ms tone into the room sink (as it plays the user's phrases); the rig's recording of the
 * room places it on the wall clock. A plain page (served from 127.0.0.1, a secure context) captures the microphone
 * the way the offscreen document does (both tracks, the same worklet, the same capture-time mapping) and finds the
 * tone's first sample; the difference is what the sweep's "voice → first frame" cannot go under.
 * Output: the page schedules a 30 ms tone on a 24 kHz context (the reply's rate) and the rig's recording of the
 * speakers finds it; the difference from the context-clock time mapped to the wall clock is what any cut of the
 * reply takes to be heard gone, however fast it is decided.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { launchExtension } from '../../tests/e2e/harness';
import { RIG_RATE, startRig, tone } from '../../tests/room/rig';
import { quantile } from './report';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const TAKES = Number(arg('takes', '12'));
const OUT = arg('out', '');
const TONE_HZ = 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const PAGE = `<!doctype html><title>rig latency</title><script>
window.capture = async () => {
  const audio = { channelCount: 1, noiseSuppression: false, autoGainControl: false };
  const processed = await navigator.mediaDevices.getUserMedia({ audio: { ...audio, echoCancellation: true } });
  const raw = await navigator.mediaDevices.getUserMedia({ audio: { ...audio, echoCancellation: false } });
  const ctx = new AudioContext({ sampleRate: 16000, latencyHint: 'interactive' });
  await ctx.audioWorklet.addModule('/mic-framer.js');
  const merger = ctx.createChannelMerger(2);
  ctx.createMediaStreamSource(processed).connect(merger, 0, 0);
  ctx.createMediaStreamSource(raw).connect(merger, 0, 1);
  const framer = new AudioWorkletNode(ctx, 'mic-framer', { numberOfInputs: 1, numberOfOutputs: 1, channelCount: 2,
    channelCountMode: 'explicit', channelInterpretation: 'discrete', processorOptions: { withRaw: true } });
  merger.connect(framer);
  const mute = ctx.createGain(); mute.gain.value = 0; framer.connect(mute).connect(ctx.destination);
  window.frames_ = [];
  framer.port.onmessage = (e) => {
    const d = e.data;
    // The offscreen document's mapping (models/audio/mic-capture.ts), on the wall clock.
    const at = performance.timeOrigin + performance.now() - Math.max(0, ctx.currentTime - d.time) * 1000;
    window.frames_.push({ at, p: Array.from(d.frame), r: Array.from(d.raw) });
    if (window.frames_.length > 400) window.frames_.shift();
  };
  await ctx.resume();
  return { baseLatency: ctx.baseLatency };
};
window.firstOver = (from, threshold) => {
  // Sample k of a frame stamped at quantum time t: the frame ends in that 128-sample quantum.
  const first = (track) => {
    for (const f of window.frames_) {
      if (f.at < from) continue;
      const k = f[track].findIndex((v) => Math.abs(v) > threshold);
      if (k >= 0) return f.at + ((k - 384) / 16000) * 1000;
    }
    return null;
  };
  return { processed: first('p'), raw: first('r') };
};
window.play = async () => {
  window.out_ = window.out_ || new AudioContext({ sampleRate: 24000 });
  const ctx = window.out_;
  await ctx.resume();
  const n = Math.round(0.03 * 24000);
  const buf = ctx.createBuffer(1, n, 24000);
  const ch = buf.getChannelData(0);
  for (let i = 0; i < n; i++) ch[i] = 0.5 * Math.sin((2 * Math.PI * ${TONE_HZ} * i) / 24000);
  const src = ctx.createBufferSource();
  src.buffer = buf;
  src.connect(ctx.destination);
  const start = ctx.currentTime + 0.3;
  // Where the reply's player stands when it changes its gain: the context clock, read now, mapped onto the wall.
  const scheduledAt = performance.timeOrigin + performance.now() + (start - ctx.currentTime) * 1000;
  src.start(start);
  return { scheduledAt, baseLatency: ctx.baseLatency, outputLatency: ctx.outputLatency };
};
</script>`;

/** Wall time of the first sample of `s` over `threshold`, `s` starting at `startedAt`. */
function onset(s: Float32Array, startedAt: number, threshold: number): number | null {
  const i = s.findIndex((v) => Math.abs(v) > threshold);
  return i < 0 ? null : startedAt + (i / RIG_RATE) * 1000;
}

async function main(): Promise<void> {
  const worklet = readFileSync('public/worklets/mic-framer.js');
  const server = createServer((req, res) => {
    if (req.url === '/mic-framer.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(worklet);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  // The room's effects apply to the speakers' sound, not to a sound played into the room; the rig measures its own
  // delay with a tone through the room at start, so the echo must be audible (the sweep's −20 dB room).
  const rig = await startRig({ delayS: 0.04, reverb: 0, overdrive: 0, gainDb: -20 });
  const session = await launchExtension({ pulseServer: rig.server });
  const toneWav = tone(TONE_HZ);
  const captures: { processed: number | null; raw: number | null }[] = [];
  const outputs: number[] = [];
  let reported: Record<string, number> = {};
  try {
    const page = await session.context.newPage();
    await page.goto(url);
    const { baseLatency } = await page.evaluate(() =>
      (window as unknown as { capture(): Promise<{ baseLatency: number }> }).capture(),
    );
    reported = { captureBaseLatencyMs: baseLatency * 1000 };
    const room = rig.record('room.monitor');
    const speakers = rig.record('speakers.monitor');
    await sleep(1500);
    for (let t = 0; t < TAKES; t++) {
      const { spawnedAt, done } = await rig.say(toneWav);
      await done;
      await sleep(400);
      const heard = onset(room.between(spawnedAt, Date.now()), Math.max(room.startedAt, spawnedAt), 0.05);
      const inPage =
        heard === null
          ? null
          : await page.evaluate(
              ([from]) =>
                (
                  window as unknown as {
                    firstOver(f: number, t: number): { processed: number | null; raw: number | null } | null;
                  }
                ).firstOver(from!, 0.02),
              [heard - 100],
            );
      if (heard !== null && inPage)
        captures.push({ processed: inPage.processed && inPage.processed - heard, raw: inPage.raw && inPage.raw - heard });
      const before = Date.now();
      const played = await page.evaluate(() =>
        (window as unknown as { play(): Promise<{ scheduledAt: number; baseLatency: number; outputLatency: number }> }).play(),
      );
      reported = { ...reported, outputBaseLatencyMs: played.baseLatency * 1000, outputLatencyMs: played.outputLatency * 1000 };
      await sleep(800);
      const out = onset(speakers.between(before, Date.now()), Math.max(speakers.startedAt, before), 0.05);
      if (out !== null) outputs.push(out - played.scheduledAt);
      await sleep(300);
    }
    room.stop();
    speakers.stop();
  } finally {
    await session.close();
    await rig.close();
    server.close();
  }
  const raw = captures.map((c) => c.raw).filter((v): v is number => v !== null);
  const processed = captures.map((c) => c.processed).filter((v): v is number => v !== null);
  const result = {
    takes: TAKES,
    captureRawMs: raw.map(Math.round),
    captureProcessedMs: processed.map(Math.round),
    outputMs: outputs.map(Math.round),
    p50: {
      captureRawMs: Math.round(quantile(raw, 0.5) ?? NaN),
      captureProcessedMs: Math.round(quantile(processed, 0.5) ?? NaN),
      outputMs: Math.round(quantile(outputs, 0.5) ?? NaN),
    },
    reported,
  };
  console.log(JSON.stringify(result, null, 2));
  if (OUT) writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
