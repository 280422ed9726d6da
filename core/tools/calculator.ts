// Calculator: a tokenizer that understands spoken maths ("twelve times seven", "15 percent of 80") and a
// recursive-descent parser that evaluates exactly with bigint rationals. No eval, ever.
import { Rational } from './rational';
import type { CalculationCard, ToolResult } from './types';

type Tok =
  { t: 'num'; v: Rational } | { t: 'op'; v: '+' | '-' | '*' | '/' | '^' | 'mod' | '%' | 'sq' | 'cube' | 'sqrt' | '(' | ')' };

export class CalcError extends Error {
  constructor(
    readonly code: 'syntax' | 'division_by_zero' | 'too_big' | 'domain',
    message: string,
  ) {
    super(message);
  }
}

const SMALL: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const SCALE: Record<string, bigint> = {
  hundred: 100n,
  thousand: 1000n,
  million: 10n ** 6n,
  billion: 10n ** 9n,
  trillion: 10n ** 12n,
};

/** Multi-word spoken operators, rewritten before tokenizing. Order matters: longer phrases first. */
const PHRASES: [RegExp, string][] = [
  [/\bto the power of\b|\braised to(?: the)?\b/g, ' ^ '],
  [/\bsquare root of\b|\bsqrt\b|√/g, ' sqrt '],
  [/\bmultiplied by\b|\btimes\b|[×·]/g, ' * '],
  [/\bdivided by\b|\bover\b|÷/g, ' / '],
  [/\bpercent of\b|%\s*of\b/g, ' % * '],
  [/\bpercent\b|\bper cent\b/g, ' % '],
  [/\bplus\b|\band\b(?=\s*[\d(])/g, ' + '],
  [/\bminus\b|\bnegative\b|[−–]/g, ' - '],
  [/\bmodulo\b|\bmod\b/g, ' mod '],
  [/\bsquared\b/g, ' sq '],
  [/\bcubed\b/g, ' cube '],
  [/\*\*/g, ' ^ '],
];

/** Strips a spoken lead-in ("what is", "calculate") and trailing "equal"/"?" so only the maths remains. */
export function stripMathLeadIn(text: string): string {
  return text
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .trim()
    .replace(/^(?:hey\s+)?(?:what(?:'s| is)|how much is|calculate|compute|work out|solve|evaluate)\s+/, '')
    .replace(/\s*(?:equals?|is)?\s*[?=.!]*\s*$/, '')
    .trim();
}

export function tokenize(input: string): Tok[] {
  let s = ` ${input.toLowerCase()} `;
  for (const [re, rep] of PHRASES) s = s.replace(re, rep);
  // "x" as multiplication only between numbers ("3 x 4").
  s = s.replace(/(\d)\s*x\s*(?=[\d(])/g, '$1 * ');
  const raw = s.match(/\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d*\.\d+|\d+|[a-z]+|[-+*/^%()]|\S/g) ?? [];
  const out: Tok[] = [];
  let i = 0;
  while (i < raw.length) {
    const w = raw[i]!;
    if (/^[\d.,]+$/.test(w) && /\d/.test(w)) {
      out.push({ t: 'num', v: Rational.fromDecimal(w.replace(/,/g, '')) });
      i++;
    } else if (w in SMALL || w in SCALE || (w === 'a' && raw[i + 1]! in SCALE)) {
      const [value, next] = readNumberWords(raw, i);
      out.push({ t: 'num', v: value });
      i = next;
    } else if (['+', '-', '*', '/', '^', '%', '(', ')', 'mod', 'sq', 'cube', 'sqrt'].includes(w)) {
      out.push({ t: 'op', v: w as Extract<Tok, { t: 'op' }>['v'] });
      i++;
    } else if (w === 'by' || w === 'of' || w === 'the') {
      i++; // leftovers of phrases like "divide 10 by 2" are not supported; "of"/"the" are noise here
    } else {
      throw new CalcError('syntax', `unexpected word: ${w}`);
    }
  }
  return out;
}

/** Reads "two hundred and fifty three point five" → 253.5. */
function readNumberWords(raw: string[], start: number): [Rational, number] {
  let total = 0n;
  let current = 0n;
  let i = start;
  for (; i < raw.length; i++) {
    const w = raw[i]!;
    if (w in SMALL) current += BigInt(SMALL[w]!);
    else if (w === 'a' && raw[i + 1]! in SCALE) current = current || 1n;
    else if (w === 'hundred') current = (current || 1n) * 100n;
    else if (w in SCALE) {
      total += (current || 1n) * SCALE[w]!;
      current = 0n;
    } else if (w === 'and' && raw[i + 1]! in SMALL) continue;
    else break;
  }
  let value = new Rational(total + current);
  if (raw[i] === 'point') {
    let digits = '';
    i++;
    while (i < raw.length && raw[i]! in SMALL && SMALL[raw[i]!]! < 10) digits += String(SMALL[raw[i++]!]);
    if (digits) value = value.add(Rational.fromDecimal(`0.${digits}`));
  }
  return [value, i];
}

const MAX_BITS = 20_000;

class Parser {
  private i = 0;
  inexact = false;
  operators = 0;
  constructor(private readonly toks: Tok[]) {}

  parse(): Rational {
    if (!this.toks.length) throw new CalcError('syntax', 'empty');
    const v = this.expr();
    if (this.i < this.toks.length) throw new CalcError('syntax', 'trailing tokens');
    return v;
  }
  private peekOp(): string | null {
    const t = this.toks[this.i];
    return t && t.t === 'op' ? t.v : null;
  }
  private expr(): Rational {
    let v = this.term();
    for (let op = this.peekOp(); op === '+' || op === '-'; op = this.peekOp()) {
      this.i++;
      this.operators++;
      const r = this.term();
      v = op === '+' ? v.add(r) : v.sub(r);
    }
    return v;
  }
  private term(): Rational {
    let v = this.unary();
    for (let op = this.peekOp(); op === '*' || op === '/' || op === 'mod'; op = this.peekOp()) {
      this.i++;
      this.operators++;
      const r = this.unary();
      if ((op === '/' || op === 'mod') && r.isZero()) throw new CalcError('division_by_zero', 'division by zero');
      if (op === '*') v = v.mul(r);
      else if (op === '/') v = v.div(r);
      else {
        if (!v.isInteger() || !r.isInteger()) throw new CalcError('domain', 'mod needs whole numbers');
        v = new Rational(((v.n % r.n) + r.n) % r.n);
      }
      this.guard(v);
    }
    return v;
  }
  private unary(): Rational {
    const op = this.peekOp();
    if (op === '-' || op === '+') {
      this.i++;
      const v = this.unary();
      return op === '-' ? v.neg() : v;
    }
    if (op === 'sqrt') {
      this.i++;
      this.operators++;
      const v = this.unary();
      if (v.n < 0n) throw new CalcError('domain', 'square root of a negative number');
      const exact = v.exactSqrt();
      if (exact) return exact;
      this.inexact = true;
      return Rational.fromNumber(Math.sqrt(v.toNumber()));
    }
    return this.power();
  }
  private power(): Rational {
    const base = this.postfix();
    if (this.peekOp() !== '^') return base;
    this.i++;
    this.operators++;
    const exp = this.unary(); // right-associative
    return this.raise(base, exp);
  }
  private raise(base: Rational, exp: Rational): Rational {
    if (base.isZero() && exp.n < 0n) throw new CalcError('division_by_zero', 'zero to a negative power');
    if (exp.isInteger()) {
      const bits = base.bitLength() * Number(exp.n < 0n ? -exp.n : exp.n);
      if (bits > MAX_BITS) throw new CalcError('too_big', 'result too big');
      return base.pow(exp.n);
    }
    if (exp.n === 1n && exp.d === 2n) {
      const r = base.exactSqrt();
      if (r) return r;
    }
    if (base.n < 0n) throw new CalcError('domain', 'fractional power of a negative number');
    this.inexact = true;
    const x = Math.pow(base.toNumber(), exp.toNumber());
    if (!Number.isFinite(x)) throw new CalcError('too_big', 'result too big');
    return Rational.fromNumber(x);
  }
  private postfix(): Rational {
    let v = this.primary();
    for (let op = this.peekOp(); op === '%' || op === 'sq' || op === 'cube'; op = this.peekOp()) {
      this.i++;
      this.operators++;
      v = op === '%' ? v.div(new Rational(100n)) : v.pow(op === 'sq' ? 2n : 3n);
      this.guard(v);
    }
    return v;
  }
  private primary(): Rational {
    const t = this.toks[this.i];
    if (!t) throw new CalcError('syntax', 'unexpected end');
    if (t.t === 'num') {
      this.i++;
      return t.v;
    }
    if (t.v === '(') {
      this.i++;
      const v = this.expr();
      if (this.peekOp() !== ')') throw new CalcError('syntax', 'missing )');
      this.i++;
      return v;
    }
    throw new CalcError('syntax', `unexpected ${t.v}`);
  }
  private guard(v: Rational): void {
    if (v.bitLength() > MAX_BITS) throw new CalcError('too_big', 'result too big');
  }
}

export interface Evaluation {
  value: Rational;
  exact: boolean;
  /** Number of operators seen; 0 means the text was just a number (the router does not treat that as maths). */
  operators: number;
}

/** Evaluates an expression (spoken or symbolic); throws CalcError. */
export function evaluate(expression: string): Evaluation {
  const p = new Parser(tokenize(stripMathLeadIn(expression)));
  const value = p.parse();
  return { value, exact: !p.inexact, operators: p.operators };
}

/** How a result is written on the card and spoken. Exact decimals when they terminate, else ≈ 10 decimals. */
export function formatResult(e: Evaluation): { text: string; spoken: string; fraction: string | null } {
  const v = e.value;
  const exactDecimal = e.exact && v.terminates();
  const text = v.toDecimalString(10);
  const fraction = !v.isInteger() && e.exact && !v.terminates() ? v.toFractionString() : null;
  let spoken = text;
  const intDigits = text.replace(/^-/, '').split('.')[0]!.length;
  if (intDigits > 15) {
    const mantissa = (Number(text.replace('-', '').slice(0, 4)) / 1000).toFixed(2);
    spoken = `about ${text.startsWith('-') ? 'minus ' : ''}${mantissa} times ten to the power of ${intDigits - 1}`;
  } else if (!exactDecimal) {
    spoken = `about ${v.toDecimalString(4)}`;
  }
  return { text: exactDecimal ? text : `≈ ${text}`, spoken, fraction };
}

export function calculate(expression: string): ToolResult<CalculationCard> {
  try {
    const e = evaluate(expression);
    const f = formatResult(e);
    const card: CalculationCard = {
      kind: 'calculation',
      expression: stripMathLeadIn(expression),
      result: f.text,
      exact: e.exact && e.value.terminates(),
      fraction: f.fraction,
    };
    return { ok: true, tool: 'calculate', card, speech: `That's ${f.spoken}.` };
  } catch (err) {
    if (!(err instanceof CalcError)) throw err;
    const speech =
      err.code === 'division_by_zero'
        ? "That divides by zero, which isn't defined."
        : err.code === 'too_big'
          ? 'That number is too big for me to work out exactly.'
          : err.code === 'domain'
            ? "That doesn't have a real-number answer."
            : "I couldn't read that as a calculation.";
    return { ok: false, tool: 'calculate', kind: 'invalid_input', speech, detail: err.code };
  }
}
