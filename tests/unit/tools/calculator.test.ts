import { describe, expect, it } from 'vitest';
import { calculate, evaluate } from '../../../core/tools/calculator';

const value = (e: string): string => evaluate(e).value.toDecimalString(10);
const text = (e: string): string => {
  const r = calculate(e);
  if (!r.ok) throw new Error(r.speech);
  return r.card.result;
};

describe('calculator', () => {
  it('is exact where floating point is not', () => {
    expect(text('0.1 + 0.2')).toBe('0.3');
    expect(value('0.1 + 0.2 - 0.3')).toBe('0');
    expect(text('1.1 * 1.1')).toBe('1.21');
    expect(calculate('what is 0.1 plus 0.2?')).toMatchObject({ ok: true, speech: "That's 0.3." });
  });

  it('keeps big numbers exact', () => {
    expect(text('2^100')).toBe('1267650600228229401496703205376');
    expect(text('99999999999999999999 + 1')).toBe('100000000000000000000');
    expect(text('123456789012345678901234567890 * 987654321098765432109876543210')).toBe(
      '121932631137021795226185032733622923332237463801111263526900',
    );
    const r = calculate('2 to the power of 100');
    expect(r.ok && r.speech).toBe("That's about 1.27 times ten to the power of 30.");
  });

  it('respects precedence, parentheses, unary minus and right-associative powers', () => {
    expect(text('2 + 3 * 4')).toBe('14');
    expect(text('(2 + 3) * 4')).toBe('20');
    expect(text('-3 ^ 2')).toBe('-9');
    expect(text('2 ^ 3 ^ 2')).toBe('512');
    expect(text('10 - -2')).toBe('12');
    expect(text('17 mod 5')).toBe('2');
  });

  it('understands spoken maths', () => {
    expect(text('twelve times seven')).toBe('84');
    expect(text('15 percent of 80')).toBe('12');
    expect(text('15% of 80')).toBe('12');
    expect(text('two hundred and fifty divided by four')).toBe('62.5');
    expect(text('three point five squared')).toBe('12.25');
    expect(text('square root of 144')).toBe('12');
    expect(text('1,000,000 minus 1')).toBe('999999');
    expect(text('3 x 4')).toBe('12');
    expect(text('6 × 7 ÷ 3')).toBe('14');
  });

  it('shows repeating decimals as approximate with the exact fraction', () => {
    const r = calculate('1 / 3');
    expect(r).toMatchObject({ ok: true, card: { result: '≈ 0.3333333333', exact: false, fraction: '1/3' } });
    expect(r.ok && r.speech).toBe("That's about 0.3333.");
    expect(text('2 / 3')).toBe('≈ 0.6666666667');
  });

  it('marks irrational roots as approximate', () => {
    const r = calculate('sqrt 2');
    expect(r).toMatchObject({ ok: true, card: { exact: false } });
    expect(r.ok && r.card.result.startsWith('≈ 1.414213562')).toBe(true);
  });

  it('refuses division by zero, negative roots, huge powers and nonsense with honest lines', () => {
    expect(calculate('5 / 0')).toMatchObject({ ok: false, kind: 'invalid_input', detail: 'division_by_zero' });
    expect(calculate('5 divided by (2 - 2)')).toMatchObject({ ok: false, detail: 'division_by_zero' });
    expect(calculate('0 ^ -1')).toMatchObject({ ok: false, detail: 'division_by_zero' });
    expect(calculate('square root of -4')).toMatchObject({ ok: false, detail: 'domain' });
    expect(calculate('10 ^ 100000')).toMatchObject({ ok: false, detail: 'too_big' });
    expect(calculate('2 + banana')).toMatchObject({ ok: false, detail: 'syntax' });
    expect(calculate('(2 + 3')).toMatchObject({ ok: false, detail: 'syntax' });
    expect(calculate('alert(1)')).toMatchObject({ ok: false, detail: 'syntax' });
  });
});
