// Colours as the page extractor sees them (core/page/visibility.ts): computed CSS colours turned into sRGB numbers,
// layered the way the browser paints them, and compared by WCAG contrast ratio. No DOM globals: the page's document
// is passed in for the one case a string cannot be read directly.

/** sRGB channels 0–255, alpha 0–1. */
export interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

export const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 1 };
/** Chrome's canvas colour for pages that choose a dark colour scheme. */
export const DARK_CANVAS: Rgba = { r: 18, g: 18, b: 18, a: 1 };

const LEGACY_RGB = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:\s*[,/]\s*([\d.]+)(%?))?\s*\)$/i;

/** Chrome's computed value for colours given in hex, names, rgb() or hsl(): `rgb(r, g, b)` / `rgba(r, g, b, a)`. */
export function parseLegacyColour(text: string): Rgba | null {
  const t = text.trim().toLowerCase();
  if (t === 'transparent') return { r: 0, g: 0, b: 0, a: 0 };
  const m = LEGACY_RGB.exec(t);
  if (!m) return null;
  const alpha = m[4] === undefined ? 1 : Number(m[4]) / (m[5] ? 100 : 1);
  return { r: Number(m[1]), g: Number(m[2]), b: Number(m[3]), a: Math.min(1, Math.max(0, alpha)) };
}

/**
 * A resolver for any computed colour string. Colours given in newer spaces (oklch, lab, color(display-p3 …)) keep
 * their own syntax in computed styles, so those are painted on a 1×1 canvas that is never attached to the page and
 * read back as sRGB. Results are cached per string: a page uses few distinct colours. `null` = cannot tell.
 */
export function colourResolver(doc: Document): (text: string) => Rgba | null {
  const cache = new Map<string, Rgba | null>();
  let ctx: CanvasRenderingContext2D | null | undefined;
  const paint = (text: string): Rgba | null => {
    if (ctx === undefined) {
      try {
        const canvas = doc.createElement('canvas');
        canvas.width = 1;
        canvas.height = 1;
        ctx = canvas.getContext('2d', { willReadFrequently: true });
      } catch {
        ctx = null;
      }
    }
    if (!ctx) return null;
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = '#01020300'; // a sentinel: an invalid colour leaves this one set
    ctx.fillStyle = text;
    if (ctx.fillStyle === '#01020300' || ctx.fillStyle === 'rgba(1, 2, 3, 0)') return null;
    ctx.fillRect(0, 0, 1, 1);
    const [r = 0, g = 0, b = 0, a = 0] = ctx.getImageData(0, 0, 1, 1).data;
    return { r, g, b, a: a / 255 };
  };
  return (text) => {
    let hit = cache.get(text);
    if (hit === undefined) {
      hit = parseLegacyColour(text) ?? paint(text);
      cache.set(text, hit);
    }
    return hit;
  };
}

/** `top` painted over `bottom` (source-over). */
export function over(top: Rgba, bottom: Rgba): Rgba {
  const a = top.a + bottom.a * (1 - top.a);
  if (a === 0) return { r: 0, g: 0, b: 0, a: 0 };
  const mix = (t: number, b: number): number => (t * top.a + b * bottom.a * (1 - top.a)) / a;
  return { r: mix(top.r, bottom.r), g: mix(top.g, bottom.g), b: mix(top.b, bottom.b), a };
}

function luminance(c: Rgba): number {
  const lin = (v: number): number => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

/** WCAG 2 contrast ratio of two opaque colours: 1 (identical) to 21 (black on white). */
export function contrastRatio(a: Rgba, b: Rgba): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}
