/**
 * A Stockham autosort FFT for one size whose prime factors are 2, 3 and 5: Whisper's 400-point frames
 * (core/turn/log-mel.ts) and the power-of-two correlations of core/engine/echo-match.ts.
 */
const C1 = Math.cos((2 * Math.PI) / 5);
const C2 = Math.cos((4 * Math.PI) / 5);
const S1 = Math.sin((2 * Math.PI) / 5);
const S2 = Math.sin((4 * Math.PI) / 5);

/** Stockham autosort FFT for one size; complex in, complex out, forward (e^{-2πi·jk/n}). */
export class MixedRadixFft {
  private readonly radices: number[] = [];
  private readonly cos: Float64Array;
  private readonly sin: Float64Array;
  private readonly sr: Float64Array;
  private readonly si: Float64Array;

  constructor(readonly n: number) {
    let rest = n;
    for (const r of [4, 2, 3, 5]) {
      while (rest % r === 0) {
        this.radices.push(r);
        rest /= r;
      }
    }
    if (rest !== 1) throw new Error(`FFT size ${n} has a prime factor above 5`);
    this.cos = Float64Array.from({ length: n }, (_, k) => Math.cos((2 * Math.PI * k) / n));
    this.sin = Float64Array.from({ length: n }, (_, k) => -Math.sin((2 * Math.PI * k) / n));
    this.sr = new Float64Array(n);
    this.si = new Float64Array(n);
  }

  /** Transforms (re, im) in place. */
  transform(re: Float64Array, im: Float64Array): void {
    const { n, cos, sin } = this;
    let xr = re;
    let xi = im;
    let yr = this.sr;
    let yi = this.si;
    let len = n;
    let stride = 1;
    const ar = new Float64Array(5);
    const ai = new Float64Array(5);
    const br = new Float64Array(5);
    const bi = new Float64Array(5);
    for (const r of this.radices) {
      const m = len / r;
      const step = n / len; // twiddle index step for p·k
      const dft = this.dft(r);
      for (let p = 0; p < m; p++) {
        for (let q = 0; q < stride; q++) {
          for (let j = 0; j < r; j++) {
            const at = q + stride * (p + j * m);
            ar[j] = xr[at]!;
            ai[j] = xi[at]!;
          }
          this.butterfly(r, ar, ai, br, bi, dft);
          for (let k = 0; k < r; k++) {
            const w = p * k * step; // < n: p < m, k < r, step = n / (m·r)
            const to = q + stride * (r * p + k);
            yr[to] = br[k]! * cos[w]! - bi[k]! * sin[w]!;
            yi[to] = br[k]! * sin[w]! + bi[k]! * cos[w]!;
          }
        }
      }
      [xr, yr] = [yr, xr];
      [xi, yi] = [yi, xi];
      len = m;
      stride *= r;
    }
    if (xr !== re) {
      re.set(xr);
      im.set(xi);
    }
  }

  /** The radix-r DFT of (ar, ai) into (br, bi); radices 4 and 5 written out, others by their matrix. */
  private butterfly(
    r: number,
    ar: Float64Array,
    ai: Float64Array,
    br: Float64Array,
    bi: Float64Array,
    dft: { cos: Float64Array; sin: Float64Array },
  ): void {
    if (r === 4) {
      const s0r = ar[0]! + ar[2]!;
      const s0i = ai[0]! + ai[2]!;
      const d0r = ar[0]! - ar[2]!;
      const d0i = ai[0]! - ai[2]!;
      const s1r = ar[1]! + ar[3]!;
      const s1i = ai[1]! + ai[3]!;
      const d1r = ar[1]! - ar[3]!;
      const d1i = ai[1]! - ai[3]!;
      br[0] = s0r + s1r;
      bi[0] = s0i + s1i;
      br[2] = s0r - s1r;
      bi[2] = s0i - s1i;
      // k = 1: d0 − i·d1; k = 3: d0 + i·d1.
      br[1] = d0r + d1i;
      bi[1] = d0i - d1r;
      br[3] = d0r - d1i;
      bi[3] = d0i + d1r;
      return;
    }
    if (r === 5) {
      const t1r = ar[1]! + ar[4]!;
      const t1i = ai[1]! + ai[4]!;
      const t2r = ar[2]! + ar[3]!;
      const t2i = ai[2]! + ai[3]!;
      const t3r = ar[1]! - ar[4]!;
      const t3i = ai[1]! - ai[4]!;
      const t4r = ar[2]! - ar[3]!;
      const t4i = ai[2]! - ai[3]!;
      br[0] = ar[0]! + t1r + t2r;
      bi[0] = ai[0]! + t1i + t2i;
      const ar1 = ar[0]! + C1 * t1r + C2 * t2r;
      const ai1 = ai[0]! + C1 * t1i + C2 * t2i;
      const ar2 = ar[0]! + C2 * t1r + C1 * t2r;
      const ai2 = ai[0]! + C2 * t1i + C1 * t2i;
      // −i·(S1·t3 + S2·t4) and −i·(S2·t3 − S1·t4)
      const u1r = S1 * t3i + S2 * t4i;
      const u1i = -(S1 * t3r + S2 * t4r);
      const u2r = S2 * t3i - S1 * t4i;
      const u2i = -(S2 * t3r - S1 * t4r);
      br[1] = ar1 + u1r;
      bi[1] = ai1 + u1i;
      br[4] = ar1 - u1r;
      bi[4] = ai1 - u1i;
      br[2] = ar2 + u2r;
      bi[2] = ai2 + u2i;
      br[3] = ar2 - u2r;
      bi[3] = ai2 - u2i;
      return;
    }
    for (let k = 0; k < r; k++) {
      let sumR = 0;
      let sumI = 0;
      const row = k * r;
      for (let j = 0; j < r; j++) {
        const c = dft.cos[row + j]!;
        const s = dft.sin[row + j]!;
        sumR += ar[j]! * c - ai[j]! * s;
        sumI += ar[j]! * s + ai[j]! * c;
      }
      br[k] = sumR;
      bi[k] = sumI;
    }
  }

  private readonly dfts = new Map<number, { cos: Float64Array; sin: Float64Array }>();

  /** The r×r DFT matrix e^{-2πi·jk/r}, row k. */
  private dft(r: number): { cos: Float64Array; sin: Float64Array } {
    let d = this.dfts.get(r);
    if (!d) {
      const idx = (i: number) => (Math.floor(i / r) * (i % r)) % r;
      d = {
        cos: Float64Array.from({ length: r * r }, (_, i) => Math.cos((2 * Math.PI * idx(i)) / r)),
        sin: Float64Array.from({ length: r * r }, (_, i) => -Math.sin((2 * Math.PI * idx(i)) / r)),
      };
      this.dfts.set(r, d);
    }
    return d;
  }
}
