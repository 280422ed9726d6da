/**
 * Finds the echo path's bulk delay, so the adaptive filter only has to span the room's tail (a short filter converges
 * several times faster than one that also spans the delay): GCC-PHAT between the last `windowMs` of the reference and
 * of the microphone (docs/echo-canceller.md). An estimate counts only when the correlation's peak stands well above
 * its spread and the reference played enough in the window.
 */
import { MixedRadixFft } from '../turn/fft';

const RATE = 16_000;

export class DelayEstimator {
  private readonly size: number;
  private readonly fft: MixedRadixFft;
  private readonly ref: Float64Array;
  private readonly mic: Float64Array;
  private filled = 0;
  private readonly maxLag: number;

  constructor(
    windowMs = 1024,
    maxDelayMs = 400,
    /** Peak over the mean absolute correlation that makes an estimate. */
    private readonly minPeakRatio = 8,
  ) {
    const n = Math.round((windowMs * RATE) / 1000);
    this.size = 1 << Math.ceil(Math.log2(2 * n));
    this.fft = new MixedRadixFft(this.size);
    this.ref = new Float64Array(n);
    this.mic = new Float64Array(n);
    this.maxLag = Math.round((maxDelayMs * RATE) / 1000);
  }

  /** Appends samples of both (same length). */
  push(reference: ArrayLike<number>, mic: ArrayLike<number>): void {
    const n = this.ref.length;
    const k = reference.length;
    this.ref.copyWithin(0, k);
    this.mic.copyWithin(0, k);
    for (let i = 0; i < k; i++) {
      this.ref[n - k + i] = reference[i]!;
      this.mic[n - k + i] = mic[i]!;
    }
    this.filled = Math.min(n, this.filled + k);
  }

  /** The delay in samples of the microphone behind the reference, or null when the window cannot tell. */
  estimate(): number | null {
    const n = this.ref.length;
    if (this.filled < n) return null;
    let re = 0;
    for (let i = 0; i < n; i++) re += this.ref[i]! * this.ref[i]!;
    if (re / n < 1e-6) return null;
    const m = this.size;
    const xr = new Float64Array(m);
    const xi = new Float64Array(m);
    const dr = new Float64Array(m);
    const di = new Float64Array(m);
    xr.set(this.ref);
    dr.set(this.mic);
    this.fft.transform(xr, xi);
    this.fft.transform(dr, di);
    // Cross-spectrum D · conj(X), whitened (PHAT); then the inverse transform (conjugate trick).
    for (let k = 0; k < m; k++) {
      const r = dr[k]! * xr[k]! + di[k]! * xi[k]!;
      const i = di[k]! * xr[k]! - dr[k]! * xi[k]!;
      const mag = Math.hypot(r, i) + 1e-12;
      xr[k] = r / mag;
      xi[k] = -i / mag;
    }
    this.fft.transform(xr, xi);
    let best = 0;
    let at = 0;
    let sum = 0;
    for (let lag = 0; lag <= this.maxLag; lag++) {
      const v = Math.abs(xr[lag]!);
      sum += v;
      if (v > best) {
        best = v;
        at = lag;
      }
    }
    const mean = sum / (this.maxLag + 1);
    return best > this.minPeakRatio * mean ? at : null;
  }
}
