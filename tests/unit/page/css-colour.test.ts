import { describe, expect, it } from 'vitest';
import { contrastRatio, over, parseLegacyColour, WHITE } from '../../../core/page/css-colour';
import { MIN_TEXT_CONTRAST } from '../../../core/page/visibility';

const hex = (h: string) => ({
  r: parseInt(h.slice(1, 3), 16),
  g: parseInt(h.slice(3, 5), 16),
  b: parseInt(h.slice(5, 7), 16),
  a: 1,
});

describe('computed colours', () => {
  it("reads Chrome's computed rgb()/rgba() forms and transparent; other spaces are left to the canvas", () => {
    expect(parseLegacyColour('rgb(18, 52, 86)')).toEqual({ r: 18, g: 52, b: 86, a: 1 });
    expect(parseLegacyColour('rgba(0, 0, 0, 0)')).toEqual({ r: 0, g: 0, b: 0, a: 0 });
    expect(parseLegacyColour('rgba(255, 255, 255, 0.5)')).toEqual({ r: 255, g: 255, b: 255, a: 0.5 });
    expect(parseLegacyColour('transparent')?.a).toBe(0);
    expect(parseLegacyColour('oklch(0.7 0.1 150)')).toBeNull();
  });

  it('WCAG contrast: the published anchors (21:1, 1:1, #767676 on white just above 4.5:1)', () => {
    expect(contrastRatio(hex('#000000'), WHITE)).toBeCloseTo(21, 5);
    expect(contrastRatio(WHITE, WHITE)).toBe(1);
    expect(contrastRatio(hex('#767676'), WHITE)).toBeGreaterThan(4.5);
    expect(contrastRatio(hex('#777777'), WHITE)).toBeLessThan(4.5);
  });

  it('the "same colour" threshold: near-white on white is under it, faint real UI grey is well above', () => {
    expect(contrastRatio(hex('#fdfdfd'), WHITE)).toBeLessThan(MIN_TEXT_CONTRAST);
    expect(contrastRatio(hex('#f0f0f0'), WHITE)).toBeLessThan(MIN_TEXT_CONTRAST);
    expect(contrastRatio(hex('#cccccc'), WHITE)).toBeGreaterThan(MIN_TEXT_CONTRAST);
  });

  it('layers translucent paint over what is behind it', () => {
    expect(over({ r: 0, g: 0, b: 0, a: 0 }, WHITE)).toEqual(WHITE);
    expect(over({ r: 0, g: 0, b: 0, a: 0.5 }, WHITE)).toEqual({ r: 127.5, g: 127.5, b: 127.5, a: 1 });
  });
});
