// Exact rational arithmetic on bigint, so 0.1 + 0.2 is exactly 3/10 and big integers stay exact.

export class Rational {
  readonly n: bigint;
  readonly d: bigint;

  constructor(n: bigint, d: bigint = 1n) {
    if (d === 0n) throw new RangeError('division by zero');
    if (d < 0n) {
      n = -n;
      d = -d;
    }
    const g = gcd(n < 0n ? -n : n, d);
    this.n = g > 1n ? n / g : n;
    this.d = g > 1n ? d / g : d;
  }

  static readonly ZERO = new Rational(0n);
  static readonly ONE = new Rational(1n);

  /** Parses a plain decimal literal ("12", "0.1", "1234.5678") exactly. */
  static fromDecimal(text: string): Rational {
    const m = /^(\d*)(?:\.(\d+))?$/.exec(text);
    if (!m || (m[1] === '' && m[2] === undefined)) throw new SyntaxError(`not a number: ${text}`);
    const frac = m[2] ?? '';
    return new Rational(BigInt((m[1] || '0') + frac), 10n ** BigInt(frac.length));
  }

  /** Exact value of a finite double (used only after an inexact step such as an irrational root). */
  static fromNumber(x: number): Rational {
    if (!Number.isFinite(x)) throw new RangeError('not finite');
    const s = x.toPrecision(15);
    const neg = s.startsWith('-');
    const [mant, exp] = (neg ? s.slice(1) : s).split('e');
    let r = Rational.fromDecimal(mant!);
    const e = Number(exp ?? 0);
    r = e >= 0 ? r.mul(new Rational(10n ** BigInt(e))) : r.div(new Rational(10n ** BigInt(-e)));
    return neg ? r.neg() : r;
  }

  add(o: Rational): Rational {
    return new Rational(this.n * o.d + o.n * this.d, this.d * o.d);
  }
  sub(o: Rational): Rational {
    return this.add(o.neg());
  }
  mul(o: Rational): Rational {
    return new Rational(this.n * o.n, this.d * o.d);
  }
  div(o: Rational): Rational {
    if (o.n === 0n) throw new RangeError('division by zero');
    return new Rational(this.n * o.d, this.d * o.n);
  }
  neg(): Rational {
    return new Rational(-this.n, this.d);
  }
  isInteger(): boolean {
    return this.d === 1n;
  }
  isZero(): boolean {
    return this.n === 0n;
  }
  /** Integer power; caller bounds the size. */
  pow(e: bigint): Rational {
    if (e < 0n) return Rational.ONE.div(this.pow(-e));
    return new Rational(this.n ** e, this.d ** e);
  }
  toNumber(): number {
    return Number(this.n) / Number(this.d);
  }
  /** Exact square root when numerator and denominator are perfect squares, else null. */
  exactSqrt(): Rational | null {
    if (this.n < 0n) return null;
    const a = isqrt(this.n);
    const b = isqrt(this.d);
    return a * a === this.n && b * b === this.d ? new Rational(a, b) : null;
  }
  /** True when the decimal expansion terminates (denominator is 2^a·5^b). */
  terminates(): boolean {
    let d = this.d;
    while (d % 2n === 0n) d /= 2n;
    while (d % 5n === 0n) d /= 5n;
    return d === 1n;
  }
  toFractionString(): string {
    return this.d === 1n ? this.n.toString() : `${this.n}/${this.d}`;
  }
  /** Decimal text: exact when it terminates, else rounded (half away from zero) to maxFractionDigits. */
  toDecimalString(maxFractionDigits = 10): string {
    const neg = this.n < 0n;
    const n = neg ? -this.n : this.n;
    let digits = 0;
    if (this.terminates()) {
      let d = this.d;
      while (d > 1n) {
        d = d % 10n === 0n ? d / 10n : d % 2n === 0n ? d / 2n : d / 5n;
        digits++;
      }
    } else {
      digits = maxFractionDigits;
    }
    const scale = 10n ** BigInt(digits);
    let scaled = (n * scale) / this.d;
    const rem = (n * scale) % this.d;
    if (rem * 2n >= this.d) scaled += 1n;
    let s = scaled.toString().padStart(digits + 1, '0');
    if (digits > 0) {
      s = `${s.slice(0, -digits)}.${s.slice(-digits)}`.replace(/0+$/, '').replace(/\.$/, '');
    }
    return (neg && s !== '0' ? '-' : '') + s;
  }
  bitLength(): number {
    return (this.n < 0n ? -this.n : this.n).toString(2).length + this.d.toString(2).length;
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? 1n : a;
}

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  // Newton's method from above; converges monotonically for integers.
  let x = n;
  let y = (x + 1n) >> 1n;
  while (y < x) {
    x = y;
    y = (x + n / x) >> 1n;
  }
  return x;
}
