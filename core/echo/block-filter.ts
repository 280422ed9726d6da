/**
 * A partitioned-block frequency-domain adaptive filter (overlap-save, NLMS step normalised per bin): the linear model
 * of the echo path from what the speakers played (the reference) to the microphone (docs/echo-canceller.md). Blocks of
 * `n` samples; the filter spans `partitions` blocks, so its tail is partitions × n samples (the path's delay included).
 */
import { MixedRadixFft } from '../turn/fft';

export class BlockFilter {
  readonly n: number;
  private readonly m: number;
  private readonly fft: MixedRadixFft;
  /** Reference spectra of the last `partitions` blocks (newest at `head`), and the filter's partitions. */
  private readonly xr: Float64Array[];
  private readonly xi: Float64Array[];
  readonly wr: Float64Array[];
  readonly wi: Float64Array[];
  private head = 0;
  /** Smoothed reference power per bin, summed over the partitions' span: the NLMS normaliser. */
  private readonly power: Float64Array;
  private readonly previous: Float64Array;
  private readonly yr: Float64Array;
  private readonly yi: Float64Array;
  private readonly er: Float64Array;
  private readonly ei: Float64Array;
  private readonly gr: Float64Array;
  private readonly gi: Float64Array;
  /** The last block's echo estimate (time domain, n samples). */
  readonly echo: Float64Array;

  constructor(
    n: number,
    readonly partitions: number,
  ) {
    this.n = n;
    this.m = 2 * n;
    this.fft = new MixedRadixFft(this.m);
    const bank = () => Array.from({ length: partitions }, () => new Float64Array(this.m));
    this.xr = bank();
    this.xi = bank();
    this.wr = bank();
    this.wi = bank();
    this.power = new Float64Array(this.m).fill(1e-9);
    this.previous = new Float64Array(n);
    this.yr = new Float64Array(this.m);
    this.yi = new Float64Array(this.m);
    this.er = new Float64Array(this.m);
    this.ei = new Float64Array(this.m);
    this.gr = new Float64Array(this.m);
    this.gi = new Float64Array(this.m);
    this.echo = new Float64Array(n);
  }

  private inverse(re: Float64Array, im: Float64Array): void {
    for (let k = 0; k < this.m; k++) im[k] = -im[k]!;
    this.fft.transform(re, im);
    for (let k = 0; k < this.m; k++) {
      re[k] = re[k]! / this.m;
      im[k] = -im[k]! / this.m;
    }
  }

  /** Takes the next reference block in: its spectrum joins the partitions, the oldest leaves. */
  push(x: ArrayLike<number>): void {
    this.head = (this.head + this.partitions - 1) % this.partitions;
    const re = this.xr[this.head]!;
    const im = this.xi[this.head]!;
    re.set(this.previous);
    for (let i = 0; i < this.n; i++) {
      re[this.n + i] = x[i]!;
      this.previous[i] = x[i]!;
    }
    im.fill(0);
    this.fft.transform(re, im);
    for (let k = 0; k < this.m; k++) {
      const p = re[k]! * re[k]! + im[k]! * im[k]!;
      this.power[k] = 0.8 * this.power[k]! + 0.2 * p * this.partitions;
    }
  }

  /** The echo estimate for the block just pushed, into `this.echo`. */
  estimate(): Float64Array {
    const { yr, yi } = this;
    yr.fill(0);
    yi.fill(0);
    for (let p = 0; p < this.partitions; p++) {
      const q = (this.head + p) % this.partitions;
      const [ar, ai, br, bi] = [this.wr[p]!, this.wi[p]!, this.xr[q]!, this.xi[q]!];
      for (let k = 0; k < this.m; k++) {
        yr[k] = yr[k]! + ar[k]! * br[k]! - ai[k]! * bi[k]!;
        yi[k] = yi[k]! + ar[k]! * bi[k]! + ai[k]! * br[k]!;
      }
    }
    this.inverse(yr, yi);
    for (let i = 0; i < this.n; i++) this.echo[i] = yr[this.n + i]!;
    return this.echo;
  }

  /** One NLMS step on the error block `e` (microphone − this filter's echo estimate), with step size `mu`. */
  adapt(e: ArrayLike<number>, mu: number): void {
    const { er, ei, gr, gi } = this;
    er.fill(0);
    ei.fill(0);
    for (let i = 0; i < this.n; i++) er[this.n + i] = e[i]!;
    this.fft.transform(er, ei);
    let floor = 0;
    for (let k = 0; k < this.m; k++) floor += this.power[k]!;
    floor = (floor / this.m) * 1e-3 + 1e-10;
    for (let p = 0; p < this.partitions; p++) {
      const q = (this.head + p) % this.partitions;
      const [xr, xi] = [this.xr[q]!, this.xi[q]!];
      for (let k = 0; k < this.m; k++) {
        const s = mu / (this.power[k]! + floor);
        gr[k] = s * (xr[k]! * er[k]! + xi[k]! * ei[k]!);
        gi[k] = s * (xr[k]! * ei[k]! - xi[k]! * er[k]!);
      }
      // The gradient constraint keeps each partition a causal filter of n taps: without it the circular wrap of the
      // block transform leaks into the estimate and the filter settles on a wrong path.
      this.inverse(gr, gi);
      gr.fill(0, this.n);
      gi.fill(0);
      this.fft.transform(gr, gi);
      const [wr, wi] = [this.wr[p]!, this.wi[p]!];
      for (let k = 0; k < this.m; k++) {
        wr[k] = wr[k]! + gr[k]!;
        wi[k] = wi[k]! + gi[k]!;
      }
    }
  }

  /** Forgets the path (after the bulk delay moved): the coefficients start again from zero. */
  reset(): void {
    for (let p = 0; p < this.partitions; p++) {
      this.wr[p]!.fill(0);
      this.wi[p]!.fill(0);
    }
  }

  /**
   * Moves the learnt path `by` partitions earlier (the reference is now delayed `by` blocks more, so the same room
   * sits that much earlier in the filter); negative moves it later. What falls off either end is forgotten.
   */
  shift(by: number): void {
    if (by === 0) return;
    const order = [...Array(this.partitions).keys()];
    const move = (p: number) => {
      const from = p + by;
      if (from >= 0 && from < this.partitions) {
        this.wr[p]!.set(this.wr[from]!);
        this.wi[p]!.set(this.wi[from]!);
      } else {
        this.wr[p]!.fill(0);
        this.wi[p]!.fill(0);
      }
    };
    for (const p of by > 0 ? order : order.reverse()) move(p);
  }

  copyFrom(other: BlockFilter): void {
    for (let p = 0; p < this.partitions; p++) {
      this.wr[p]!.set(other.wr[p]!);
      this.wi[p]!.set(other.wi[p]!);
    }
  }

  /** Energy of each partition's impulse response: where in the tail the path's energy sits (its delay). */
  partitionEnergy(): Float64Array {
    const out = new Float64Array(this.partitions);
    for (let p = 0; p < this.partitions; p++) {
      let s = 0;
      for (let k = 0; k < this.m; k++) s += this.wr[p]![k]! ** 2 + this.wi[p]![k]! ** 2;
      out[p] = s;
    }
    return out;
  }
}
