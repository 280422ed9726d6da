/**
 * The echo canceller's cost per 32 ms microphone frame on one core (core/echo, docs/echo-canceller.md), on a
 * synthetic room (120 ms path delay, 80 ms tail, a voice over the reply from 5 to 8 s): median and p90 of the frame
 * times after the first second, and the share of the frame's 32 ms they take.
 *   npx jiti bench/echo/canceller-cost.ts [--seconds 20]
 */
import { EchoCanceller } from '../../core/echo/echo-canceller';
import { add, convolve, impulseResponse, speechLike, window } from '../../tests/fixtures/audio/synthetic-room';

const i = process.argv.indexOf('--seconds');
const seconds = i > 0 ? Number(process.argv[i + 1]) : 20;
const reply = speechLike(seconds, 1, 0.1);
const mic = add(convolve(reply, impulseResponse(120, 80, 0.5, 2)), window(speechLike(seconds, 4, 0.06), 5, 8));
const ec = new EchoCanceller();
const times: number[] = [];
for (let off = 0; off + ec.frameSamples <= mic.length; off += ec.frameSamples) {
  const t0 = performance.now();
  ec.process(mic.subarray(off, off + ec.frameSamples), reply.subarray(off, off + ec.frameSamples));
  times.push(performance.now() - t0);
}
const s = times.slice(31).sort((a, b) => a - b);
const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
console.log(
  JSON.stringify({
    frames: s.length,
    p50Ms: +q(0.5).toFixed(3),
    p90Ms: +q(0.9).toFixed(3),
    shareOfFrameP50: +(q(0.5) / 32).toFixed(3),
  }),
);
