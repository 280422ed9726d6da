/**
 * How much a reference-based linear echo canceller could take out of the unprocessed track, at best (docs/echo.md,
 * "What is not done"). Offline, no browser: the room rig's own assistant speech goes through the rig's sox room
 * (tests/room/rig.ts `soxEffects`) at the speaker level asked for; the user's first interruption is added at 8 s. A
 * partitioned-block frequency-domain NLMS filter (overlap-save, 256-sample blocks at 16 kHz) is given the reply's
 * exact samples as its reference, perfectly aligned: the best case a product canceller could reach, before the
 * drifting delay, the player's gaps and double talk. Two double-talk policies: an oracle that freezes adaptation while
 * the user speaks, and none (it adapts throughout).
 *
 * Reported per room: echo return loss enhancement over the echo-only frames after the first 3 s, the loudest
 * residual frame (RMS, 32 ms), and the echo and residual under the voice against the voice's own level.
 *
 * Run: npx jiti bench/room/linear-canceller.ts [--partitions 16] [--mu 1] [--out bench/results/<date>-linear-canceller]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MixedRadixFft } from '../../core/turn/fft';
import { GENERATED_DIR } from '../../tests/fixtures/audio/make-wav';
import { echoGainDb } from '../../tests/room/levels';
import { soxEffects, type Acoustics } from '../../tests/room/rig';
import { assistantSpeech, userPhrase } from '../../tests/room/speech';

const RATE = 16_000;
const N = 256;
const FRAME = 512;
const VOICE_AT_S = 8;
const num = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const PARTITIONS = num('partitions', 16);
const MU = num('mu', 1);
const outAt = process.argv.indexOf('--out');
const OUT = outAt >= 0 ? process.argv[outAt + 1] : undefined;
const SOX_F32 = ['-t', 'raw', '-e', 'floating-point', '-b', '32', '-c', '1'];

function readF32(file: string): Float32Array {
  const b = readFileSync(file);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + (b.length & ~3)));
}

/** sox from a raw float file at `rate` to 16 kHz, with `effects`. */
function sox(input: string, rate: number, effects: string[], name: string): Float32Array {
  const out = join(GENERATED_DIR, name);
  execFileSync('sox', [...SOX_F32, '-r', String(rate), input, ...SOX_F32, '-r', String(RATE), out, ...effects]);
  return readF32(out);
}

class BlockNlms {
  private readonly fft = new MixedRadixFft(2 * N);
  private readonly wr: Float64Array[];
  private readonly wi: Float64Array[];
  private readonly xr: Float64Array[];
  private readonly xi: Float64Array[];
  private readonly power = new Float64Array(2 * N).fill(1e-6);
  private previous = new Float64Array(N);

  constructor(
    private readonly partitions: number,
    private readonly mu: number,
  ) {
    const zeros = () => Array.from({ length: partitions }, () => new Float64Array(2 * N));
    this.wr = zeros();
    this.wi = zeros();
    this.xr = zeros();
    this.xi = zeros();
  }

  /** Inverse transform in place (conjugate, forward, conjugate, scale). */
  private inverse(re: Float64Array, im: Float64Array): void {
    for (let k = 0; k < im.length; k++) im[k] = -im[k]!;
    this.fft.transform(re, im);
    for (let k = 0; k < re.length; k++) {
      re[k] = re[k]! / re.length;
      im[k] = -im[k]! / re.length;
    }
  }

  /** One block of reference `x` and microphone `d`: the microphone with the echo estimate taken out. */
  block(x: Float32Array, d: Float32Array, adapt: boolean): Float64Array {
    const re = new Float64Array(2 * N);
    const im = new Float64Array(2 * N);
    re.set(this.previous);
    re.set(x, N);
    this.previous = Float64Array.from(x);
    this.fft.transform(re, im);
    this.xr.unshift(this.xr.pop()!);
    this.xi.unshift(this.xi.pop()!);
    this.xr[0]!.set(re);
    this.xi[0]!.set(im);
    const yr = new Float64Array(2 * N);
    const yi = new Float64Array(2 * N);
    for (let p = 0; p < this.partitions; p++)
      for (let k = 0; k < 2 * N; k++) {
        const [ar, ai, br, bi] = [this.wr[p]![k]!, this.wi[p]![k]!, this.xr[p]![k]!, this.xi[p]![k]!];
        yr[k] = yr[k]! + ar * br - ai * bi;
        yi[k] = yi[k]! + ar * bi + ai * br;
      }
    this.inverse(yr, yi);
    const e = new Float64Array(N);
    for (let i = 0; i < N; i++) e[i] = d[i]! - yr[N + i]!;
    for (let k = 0; k < 2 * N; k++) this.power[k] = 0.9 * this.power[k]! + 0.1 * (re[k]! ** 2 + im[k]! ** 2);
    if (!adapt) return e;
    const er = new Float64Array(2 * N);
    const ei = new Float64Array(2 * N);
    er.set(e, N);
    this.fft.transform(er, ei);
    for (let p = 0; p < this.partitions; p++) {
      const gr = new Float64Array(2 * N);
      const gi = new Float64Array(2 * N);
      for (let k = 0; k < 2 * N; k++) {
        const scale = this.mu / (this.partitions * this.power[k]! + 1e-3);
        // conj(X) · E
        const [xr, xi] = [this.xr[p]![k]!, this.xi[p]![k]!];
        gr[k] = scale * (xr * er[k]! + xi * ei[k]!);
        gi[k] = scale * (xr * ei[k]! - xi * er[k]!);
      }
      // The gradient constraint: a filter of N taps (the second half of its impulse response is zeroed).
      this.inverse(gr, gi);
      gr.fill(0, N);
      gi.fill(0);
      this.fft.transform(gr, gi);
      for (let k = 0; k < 2 * N; k++) {
        const [wr, wi] = [this.wr[p]!, this.wi[p]!];
        wr[k] = wr[k]! + gr[k]!;
        wi[k] = wi[k]! + gi[k]!;
      }
    }
    return e;
  }
}

const frameRms = (x: ArrayLike<number>, f: number) => {
  let s = 0;
  for (let i = f * FRAME; i < (f + 1) * FRAME; i++) s += (x[i] ?? 0) ** 2;
  return Math.sqrt(s / FRAME);
};
const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1] ?? 0;
const db = (x: number) => 10 * Math.log10(x);

function room(acoustics: Omit<Acoustics, 'gainDb'>, levelDb: number, oracle: boolean) {
  assistantSpeech(); // writes the file below when it is not there yet
  const src = join(GENERATED_DIR, 'room-assistant.f32');
  const reference = sox(src, 24_000, [], 'canceller-reference.f32');
  const echo = sox(src, 24_000, soxEffects({ ...acoustics, gainDb: echoGainDb(acoustics, levelDb) }), 'canceller-echo.f32');
  const userRaw = join(GENERATED_DIR, 'canceller-user.f32');
  execFileSync('sox', [userPhrase(0), ...SOX_F32, '-r', String(RATE), userRaw]);
  const user = readF32(userRaw);
  const length = reference.length - (reference.length % N);
  const voice = new Float32Array(length);
  voice.set(user.subarray(0, Math.max(0, length - VOICE_AT_S * RATE)), VOICE_AT_S * RATE);
  const filter = new BlockNlms(PARTITIONS, MU);
  const residual = new Float64Array(length);
  for (let b = 0; b < length / N; b++) {
    const at = b * N;
    const d = new Float32Array(N);
    let speaking = false;
    for (let i = 0; i < N; i++) {
      d[i] = (echo[at + i] ?? 0) + voice[at + i]!;
      speaking ||= voice[at + i] !== 0;
    }
    const e = filter.block(reference.subarray(at, at + N), d, !(oracle && speaking));
    // What is left of the echo: the output less the voice (the filter is linear in its input).
    for (let i = 0; i < N; i++) residual[at + i] = e[i]! - voice[at + i]!;
  }
  const frames = Math.floor(length / FRAME);
  const echoF = Array.from({ length: frames }, (_, f) => frameRms(echo, f));
  const residualF = Array.from({ length: frames }, (_, f) => frameRms(residual, f));
  const voiceF = Array.from({ length: frames }, (_, f) => frameRms(voice, f));
  const loudest = Math.max(...echoF);
  const steady = echoF.map((e, f) => f * FRAME >= 3 * RATE && voiceF[f] === 0 && e > 0.03 * loudest);
  const sum = (v: number[], keep: boolean[]) => v.reduce((a, x, i) => a + (keep[i] ? x * x : 0), 0);
  const voiced = voiceF.map((v) => v > 0.1 * Math.max(...voiceF));
  const pick = (v: number[], keep: boolean[]) => v.filter((_, i) => keep[i]);
  return {
    ...acoustics,
    levelDb,
    doubleTalk: oracle ? 'oracle freeze' : 'adapts throughout',
    erleDb: Math.round(db(sum(echoF, steady) / sum(residualF, steady)) * 10) / 10,
    residualPeakRms: Math.round(Math.max(...pick(residualF, steady)) * 1e4) / 1e4,
    underVoice: {
      voiceRms: Math.round(median(pick(voiceF, voiced)) * 1e4) / 1e4,
      echoRms: Math.round(median(pick(echoF, voiced)) * 1e4) / 1e4,
      residualRms: Math.round(median(pick(residualF, voiced)) * 1e4) / 1e4,
    },
  };
}

const rows = [];
for (const reverb of [0, 50, 80])
  for (const overdrive of [0, 3])
    for (const oracle of [true, false]) {
      const row = room({ delayS: 0.04, reverb, overdrive }, -10, oracle);
      console.error(JSON.stringify(row));
      rows.push(row);
    }
const meta = {
  date: new Date().toISOString().slice(0, 10),
  filter: `partitioned-block NLMS, ${N}-sample blocks × ${PARTITIONS} partitions at 16 kHz (${(PARTITIONS * N * 1000) / RATE} ms), mu ${MU}`,
  command: `npx jiti bench/room/linear-canceller.ts --partitions ${PARTITIONS} --mu ${MU}`,
};
if (OUT) writeFileSync(`${OUT}.json`, `${JSON.stringify({ meta, rows }, null, 1)}\n`);
console.log(JSON.stringify({ meta, rows }, null, 1));
