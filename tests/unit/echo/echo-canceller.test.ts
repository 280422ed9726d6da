import { describe, expect, it } from 'vitest';
import { EchoCanceller, type EchoCancellerOptions } from '../../../core/echo/echo-canceller';
import { RATE, add, convolve, energy, impulseResponse, softClip, speechLike, window } from '../../fixtures/audio/synthetic-room';

const FRAME = 512;
const LAG = 256; // the suppressor's overlap-add: the output is one block late

function run(mic: Float32Array, ref: Float32Array, o: EchoCancellerOptions = {}) {
  const ec = new EchoCanceller(o);
  const out = new Float32Array(mic.length);
  const stats = [];
  for (let off = 0; off + FRAME <= mic.length; off += FRAME) {
    const r = ec.process(mic.subarray(off, off + FRAME), ref.subarray(off, off + FRAME));
    out.set(r.out, off);
    stats.push(r.stats);
  }
  // Realign the output with the microphone.
  const aligned = new Float32Array(mic.length);
  aligned.set(out.subarray(LAG));
  return { out: aligned, stats };
}

const db = (a: number, b: number) => 10 * Math.log10(a / b);
const span = (fromS: number, toS: number) => [Math.round(fromS * RATE), Math.round(toS * RATE)] as const;
/** Echo return loss enhancement over [fromS, toS): microphone energy over output energy. */
const erle = (mic: Float32Array, out: Float32Array, fromS: number, toS: number) =>
  db(energy(mic, ...span(fromS, toS)), energy(out, ...span(fromS, toS)));

describe('echo canceller on synthetic rooms', () => {
  const reply = speechLike(10, 1, 0.1);

  it.each([10, 120, 250])('takes ≥ 20 dB of a linear echo out with a path delay of %i ms', (delayMs) => {
    const echo = convolve(reply, impulseResponse(delayMs, 80, 0.5, 2));
    const mic = add(echo, speechLike(10, 9, 0.0005));
    const { out, stats } = run(mic, reply);
    const measured = erle(mic, out, 3, 10);
    console.log(`delay ${delayMs} ms: ERLE ${measured.toFixed(1)} dB, delay found ${stats.at(-1)!.delayMs} ms`);
    expect(measured).toBeGreaterThan(20);
    expect(Math.abs(stats.at(-1)!.delayMs - delayMs)).toBeLessThanOrEqual(16);
  });

  // Red with `twoPath: false` (the output's filter adapting on the voice): voice kept +1.3 dB, echo under it −4 dB,
  // 6 dB left after the double talk.
  it('keeps the user over the reply (double talk) and its model of the room through it', () => {
    const echo = convolve(reply, impulseResponse(60, 80, 0.5, 3));
    const near = window(speechLike(10, 4, 0.06), 5, 8);
    const mic = add(echo, near);
    const { out, stats } = run(mic, reply);
    const [a, b] = span(5, 8);
    const residual = out.map((v, i) => v - near[i]!);
    const kept = db(energy(out, a, b), energy(near, a, b));
    const echoLeft = db(energy(residual, a, b), energy(near, a, b));
    const after = erle(mic, out, 8.3, 10);
    console.log(
      `double talk: voice kept ${kept.toFixed(1)} dB, echo+distortion under it ${echoLeft.toFixed(1)} dB, ERLE after ${after.toFixed(1)} dB`,
    );
    expect(Math.abs(kept)).toBeLessThan(3);
    expect(echoLeft).toBeLessThan(-10);
    expect(after).toBeGreaterThan(20);
    // The voice shows as more than echo in the output.
    const during = stats.slice(Math.round((5.5 * RATE) / FRAME), Math.round((7.5 * RATE) / FRAME));
    expect(during.filter((s) => s.nearEndDb > 6).length).toBeGreaterThan(during.length / 2);
  });

  it('follows a delay that moves', () => {
    const first = convolve(reply, impulseResponse(40, 60, 0.5, 5));
    const second = convolve(reply, impulseResponse(140, 60, 0.5, 5));
    const mic = add(window(first, 0, 5), window(second, 5, 10));
    const { out } = run(mic, reply);
    const before = erle(mic, out, 3, 5);
    const after = erle(mic, out, 7, 10);
    console.log(`moving delay: ERLE ${before.toFixed(1)} dB before, ${after.toFixed(1)} dB 2 s after the move`);
    expect(before).toBeGreaterThan(20);
    // The delay is found again and the filters keep the room, moved by whole blocks; the rest of a block is relearnt.
    expect(after).toBeGreaterThan(12);
  });

  it('takes a clipping speaker down with the suppressor where the linear filter cannot', () => {
    const echo = convolve(softClip(reply, 3), impulseResponse(60, 80, 0.5, 6));
    const mic = add(echo, speechLike(10, 9, 0.0005));
    const linear = erle(mic, run(mic, reply, { suppressor: false }).out, 3, 10);
    const full = erle(mic, run(mic, reply).out, 3, 10);
    console.log(`clipping speaker: linear ${linear.toFixed(1)} dB, with the suppressor ${full.toFixed(1)} dB`);
    expect(full).toBeGreaterThan(linear + 2);
    expect(full).toBeGreaterThan(13);
  });
});
