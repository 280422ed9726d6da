/**
 * Silero's STFT as a fast transform. The model stores its STFT as a [258][256] basis for a strided convolution; in
 * v5 that basis is a window times the DFT's cos and −sin rows (checked to 6e-8 on the shipped file, docs/models.md
 * § Silero VAD in script). Then each bin's magnitude is |FFT(window · x)|: ~10 k operations per 256 samples against
 * the basis product's 66 k multiply-adds. The structure is checked when the weights load; a basis without it keeps
 * the product (silero-js.ts).
 */

/** How far a basis entry may be from window × DFT and still be taken as one (its entries are at most 1). */
const BASIS_TOLERANCE = 1e-6;

/** The window, when `basis` ([2·bins][n], cos rows then sin rows) is window × [cos; −sin]; null otherwise. */
export function dftWindow(basis: Float32Array, n: number, bins: number): Float32Array | null {
  if (basis.length !== 2 * bins * n || bins !== n / 2 + 1) return null;
  const window = basis.slice(0, n); // the 0 Hz cos row is the window itself
  for (let f = 0; f < bins; f++) {
    for (let k = 0; k < n; k++) {
      const phase = (2 * Math.PI * ((f * k) % n)) / n;
      const re = window[k]! * Math.cos(phase);
      const im = -window[k]! * Math.sin(phase);
      if (Math.abs(basis[f * n + k]! - re) > BASIS_TOLERANCE) return null;
      if (Math.abs(basis[(f + bins) * n + k]! - im) > BASIS_TOLERANCE) return null;
    }
  }
  return window;
}

/** |DFT| of `window · x[off … off+n)` for bins 0 … n/2, by an in-place radix-2 FFT (n a power of two). */
export class WindowedMagnitude {
  private readonly re: Float64Array;
  private readonly im: Float64Array;
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;
  private readonly order: Uint16Array;

  constructor(
    private readonly window: Float32Array,
    private readonly n = window.length,
  ) {
    if (n & (n - 1)) throw new Error(`FFT size must be a power of two, got ${n}`);
    this.re = new Float64Array(n);
    this.im = new Float64Array(n);
    this.cos = new Float64Array(n / 2);
    this.sin = new Float64Array(n / 2);
    for (let k = 0; k < n / 2; k++) {
      this.cos[k] = Math.cos((2 * Math.PI * k) / n);
      this.sin[k] = Math.sin((2 * Math.PI * k) / n);
    }
    this.order = new Uint16Array(n);
    const bits = Math.log2(n);
    for (let i = 0; i < n; i++) {
      let r = 0;
      for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
      this.order[i] = r;
    }
  }

  /** Writes bin f's magnitude to `out[at + f]`. */
  magnitudes(x: Float32Array, off: number, out: Float32Array, at: number): void {
    const { n, re, im, cos, sin, order, window } = this;
    for (let i = 0; i < n; i++) {
      const j = order[i]!;
      re[j] = window[i]! * x[off + i]!;
      im[j] = 0;
    }
    for (let size = 2; size <= n; size <<= 1) {
      const half = size >> 1;
      const step = n / size;
      for (let start = 0; start < n; start += size) {
        for (let k = 0; k < half; k++) {
          const c = cos[k * step]!;
          const s = sin[k * step]!;
          const a = start + k;
          const b = a + half;
          // Forward transform: twiddle e^{−2πik/size}.
          const tr = re[b]! * c + im[b]! * s;
          const ti = im[b]! * c - re[b]! * s;
          re[b] = re[a]! - tr;
          im[b] = im[a]! - ti;
          re[a] = re[a]! + tr;
          im[a] = im[a]! + ti;
        }
      }
    }
    for (let f = 0; f <= n / 2; f++) out[at + f] = Math.sqrt(re[f]! * re[f]! + im[f]! * im[f]!);
  }
}
