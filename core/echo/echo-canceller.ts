/**
 * Echo = one adaptive filter + a suppressor (docs/echo-canceller.md): the microphone minus what the speakers' samples
 * became on their way to it, then a per-bin gain for what a linear model cannot take out (a speaker's distortion).
 *
 * - Two filters on the same reference (the "two-path" arrangement): a background filter adapts on every block where the
 *   reference plays; the foreground filter makes the output and only takes the background's coefficients when they
 *   have cancelled better for a while. Talking over the reply disturbs the background's adaptation, never the output's
 *   model, so the user's voice is not learnt as echo: the comparison is the double-talk detector.
 * - The suppressor learns, per frequency bin, how much residual is left for a given echo estimate while only the reply
 *   plays, and subtracts that much (floored) from the output's spectrum; it does not learn while the output holds
 *   more than that residual (someone is talking).
 * 16 kHz mono; frames of 2 × `block` samples in, the same out (delayed by one block for the suppressor's overlap-add).
 */
import { MixedRadixFft } from '../turn/fft';
import { BlockFilter } from './block-filter';
import { DelayEstimator } from './delay-estimator';

export interface EchoCancellerOptions {
  /** Samples per block (16 ms at 16 kHz). */
  block?: number;
  /** The filter's span in ms after the bulk delay: the room's reverberant tail must fit. */
  tailMs?: number;
  /** The longest echo path delay looked for (ms). */
  maxDelayMs?: number;
  /** NLMS step size of the background filter (0–1): larger adapts faster, smaller settles deeper. */
  stepSize?: number;
  /** The suppressor's floor in dB: the most it lowers a bin. */
  suppressionFloorDb?: number;
  /** Turn the suppressor off (the linear canceller alone). */
  suppressor?: boolean;
  /** Turn the two-path comparison off: the output then uses the adapting filter itself (tests break it this way). */
  twoPath?: boolean;
}

export interface EchoFrameStats {
  /** Microphone energy over output energy, smoothed (dB): how much echo is being taken out. */
  erleDb: number;
  /** Output energy over the residual echo the suppressor expects (dB): > 0 when more than echo is left (a voice). */
  nearEndDb: number;
  /** Where the echo path's energy peaks in the filter (ms): its delay. */
  delayMs: number;
  /** The reference played in this frame. */
  farEndActive: boolean;
}

const RATE = 16_000;
const EPS = 1e-10;
/** Bins each side over which the suppressor spreads the echo estimate's power (±4 × 31 Hz). */
const SPREAD = 4;

export class EchoCanceller {
  private readonly n: number;
  private readonly background: BlockFilter;
  private readonly foreground: BlockFilter;
  private readonly mu: number;
  private readonly twoPath: boolean;
  private readonly suppressor: boolean;
  private readonly floorGain: number;
  private readonly fft: MixedRadixFft;
  private readonly window: Float64Array;
  private readonly leak: Float64Array;
  private errPrev: Float64Array;
  private echoPrev: Float64Array;
  private overlap: Float64Array;
  private readonly pyRaw: Float64Array;
  private readonly pySpread: Float64Array;
  private readonly delay: DelayEstimator;
  private readonly history: Float64Array;
  private readonly delayed: Float64Array;
  private bulk = 0;
  private candidate: number | null = null;
  private blocks = 0;
  private eB = 0;
  private eF = 0;
  private eD = 0;
  private better = 0;
  private erle = 0;
  private nearEnd = 0;

  constructor(o: EchoCancellerOptions = {}) {
    this.n = o.block ?? 256;
    const partitions = Math.max(1, Math.ceil(((o.tailMs ?? 128) * RATE) / 1000 / this.n));
    const maxDelay = Math.round(((o.maxDelayMs ?? 400) * RATE) / 1000);
    this.delay = new DelayEstimator(1024, o.maxDelayMs ?? 400);
    this.history = new Float64Array(maxDelay + 2 * this.n);
    this.delayed = new Float64Array(this.n);
    this.background = new BlockFilter(this.n, partitions);
    this.foreground = new BlockFilter(this.n, partitions);
    this.mu = o.stepSize ?? 1;
    this.twoPath = o.twoPath ?? true;
    this.suppressor = o.suppressor ?? true;
    this.floorGain = 10 ** ((o.suppressionFloorDb ?? -20) / 20);
    const m = 2 * this.n;
    this.fft = new MixedRadixFft(m);
    this.window = Float64Array.from({ length: m }, (_, i) => Math.sin((Math.PI * (i + 0.5)) / m));
    this.leak = new Float64Array(m).fill(1);
    this.errPrev = new Float64Array(this.n);
    this.echoPrev = new Float64Array(this.n);
    this.overlap = new Float64Array(this.n);
    this.pyRaw = new Float64Array(m);
    this.pySpread = new Float64Array(m);
  }

  get frameSamples(): number {
    return 2 * this.n;
  }

  /** One frame: microphone samples and the reference (what the speakers played, aligned to the same clock). */
  process(mic: Float32Array, reference: Float32Array): { out: Float32Array; stats: EchoFrameStats } {
    const out = new Float32Array(mic.length);
    let farEnd = false;
    for (let off = 0; off + this.n <= mic.length; off += this.n) {
      const d = mic.subarray(off, off + this.n);
      const x = this.follow(reference.subarray(off, off + this.n), d);
      let xe = 0;
      for (let i = 0; i < this.n; i++) xe += x[i]! * x[i]!;
      const active = xe / this.n > 1e-7;
      farEnd ||= active;
      const e = this.linear(d, x, active);
      const y = this.foreground.echo;
      out.set(this.suppress(e, y, active), off);
    }
    return { out, stats: this.stats(farEnd) };
  }

  /**
   * Keeps the reference's recent past, re-estimates the bulk delay every 16 blocks (256 ms), moves to a new one only
   * when two estimates in a row agree, and returns the reference block delayed by it, less two blocks so the direct
   * path falls inside the filter.
   */
  private follow(x: Float32Array, d: Float32Array): Float64Array {
    const n = this.n;
    const h = this.history;
    h.copyWithin(0, n);
    h.set(x, h.length - n);
    this.delay.push(x, d);
    if (++this.blocks % 16 === 0) {
      const found = this.delay.estimate();
      if (found !== null) {
        // Whole blocks: when the delay moves, the filters' coefficients move with it by whole partitions, so the room
        // they learnt stays theirs (the remainder within a block is theirs to track).
        const bulk = Math.max(0, Math.floor((found - 2 * n) / n) * n);
        if (bulk !== this.bulk) {
          if (this.candidate === bulk) {
            const by = (bulk - this.bulk) / n;
            this.background.shift(by);
            this.foreground.shift(by);
            this.bulk = bulk;
            this.candidate = null;
          } else this.candidate = bulk;
        } else this.candidate = null;
      }
    }
    const end = h.length - this.bulk;
    for (let i = 0; i < n; i++) this.delayed[i] = h[end - n + i]!;
    return this.delayed;
  }

  /** Both filters one block on; returns the foreground's error (the linear output). */
  private linear(d: Float32Array, x: Float64Array, active: boolean): Float64Array {
    const n = this.n;
    const filters = this.twoPath ? [this.background, this.foreground] : [this.background];
    for (const f of filters) f.push(x);
    const yb = this.background.estimate();
    const eb = new Float64Array(n);
    let sb = 0;
    let sd = 0;
    for (let i = 0; i < n; i++) {
      eb[i] = d[i]! - yb[i]!;
      sb += eb[i]! * eb[i]!;
      sd += d[i]! * d[i]!;
    }
    if (active) this.background.adapt(eb, this.mu);
    if (!this.twoPath) {
      this.foreground.echo.set(yb);
      this.eF = 0.9 * this.eF + 0.1 * sb;
      this.eD = 0.9 * this.eD + 0.1 * sd;
      return eb;
    }
    const yf = this.foreground.estimate();
    const ef = new Float64Array(n);
    let sf = 0;
    for (let i = 0; i < n; i++) {
      ef[i] = d[i]! - yf[i]!;
      sf += ef[i]! * ef[i]!;
    }
    this.eB = 0.7 * this.eB + 0.3 * sb;
    this.eF = 0.7 * this.eF + 0.3 * sf;
    this.eD = 0.7 * this.eD + 0.3 * sd;
    // The background has cancelled clearly better for 4 blocks running (64 ms): its model is the better one.
    this.better = active && this.eB < 0.7 * this.eF ? this.better + 1 : 0;
    if (this.better >= 4) {
      this.foreground.copyFrom(this.background);
      this.better = 0;
    } else if (this.eB > 8 * this.eD + EPS && this.eF < this.eD) {
      // The background ran away (it adapted on a voice): start it again from the output's model.
      this.background.copyFrom(this.foreground);
    }
    return ef;
  }

  /** The suppressor on one block: WOLA over two blocks, a gain per bin, one block out (one block late). */
  private suppress(e: Float64Array, y: Float64Array, active: boolean): Float64Array {
    const n = this.n;
    const m = 2 * n;
    const er = new Float64Array(m);
    const ei = new Float64Array(m);
    const yr = new Float64Array(m);
    const yi = new Float64Array(m);
    for (let i = 0; i < n; i++) {
      er[i] = this.errPrev[i]! * this.window[i]!;
      er[n + i] = e[i]! * this.window[n + i]!;
      yr[i] = this.echoPrev[i]! * this.window[i]!;
      yr[n + i] = y[i]! * this.window[n + i]!;
    }
    this.errPrev = Float64Array.from(e);
    this.echoPrev = Float64Array.from(y);
    this.fft.transform(er, ei);
    this.fft.transform(yr, yi);
    // A speaker's distortion puts echo in bins next to (and above) the ones the linear estimate fills: the suppressor
    // predicts the residual from the echo estimate's power spread over ±SPREAD bins.
    const pyRaw = this.pyRaw;
    for (let k = 0; k < m; k++) pyRaw[k] = yr[k]! * yr[k]! + yi[k]! * yi[k]!;
    const pys = this.pySpread;
    for (let k = 0; k < m; k++) {
      let s = 0;
      for (let j = Math.max(0, k - SPREAD); j <= Math.min(m - 1, k + SPREAD); j++) s += pyRaw[j]!;
      pys[k] = s / (2 * SPREAD + 1);
    }
    let outE = 0;
    let resE = 0;
    for (let k = 0; k < m; k++) {
      const pe = er[k]! * er[k]! + ei[k]! * ei[k]!;
      outE += pe;
      resE += this.leak[k]! * pys[k]!;
    }
    const ratio = outE / (resE + EPS);
    // Learn the residual per echo only while the output holds no more than about that residual (no voice on top).
    const learning = active && ratio < 4;
    for (let k = 0; k < m; k++) {
      const pe = er[k]! * er[k]! + ei[k]! * ei[k]!;
      const py = pys[k]!;
      if (learning && py > EPS) this.leak[k] = 0.95 * this.leak[k]! + 0.05 * Math.min(4, pe / py);
      let g = 1;
      if (this.suppressor && active) g = Math.max(this.floorGain, 1 - (2 * this.leak[k]! * py) / (pe + EPS));
      er[k] = er[k]! * g;
      ei[k] = ei[k]! * g;
    }
    this.nearEnd = 0.7 * this.nearEnd + 0.3 * ratio;
    for (let k = 0; k < m; k++) ei[k] = -ei[k]!;
    this.fft.transform(er, ei);
    const block = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      block[i] = this.overlap[i]! + (er[i]! / m) * this.window[i]!;
      this.overlap[i] = (er[n + i]! / m) * this.window[n + i]!;
    }
    return block;
  }

  private stats(farEnd: boolean): EchoFrameStats {
    const erleNow = 10 * Math.log10((this.eD + EPS) / (this.eF + EPS));
    this.erle = 0.8 * this.erle + 0.2 * erleNow;
    const energy = this.foreground.partitionEnergy();
    let peak = 0;
    for (let p = 1; p < energy.length; p++) if (energy[p]! > energy[peak]!) peak = p;
    return {
      erleDb: this.erle,
      nearEndDb: 10 * Math.log10(this.nearEnd + EPS),
      delayMs: ((this.bulk + peak * this.n) * 1000) / RATE,
      farEndActive: farEnd,
    };
  }
}
