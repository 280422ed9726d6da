// Which parts of the live page a person cannot see, so the extractor (core/page/extract-dom.ts) never quotes them
// (docs/tools.md, "What the user sees is what is quoted"). One top-down pass over the live document: each element's
// computed style is read once and what its descendants need from it (opacity so far, the background behind them,
// gradient-filled text, the nearest scroll container) is carried down instead of walking ancestors per text node.
// Without computed styles (linkedom in unit tests) only the attribute rules apply: `hidden`, `aria-hidden="true"` and
// an inline `display: none` / `visibility: hidden`.
import { colourResolver, contrastRatio, DARK_CANVAS, over, WHITE, type Rgba } from './css-colour';

/**
 * Limits of the visibility pass. Constants, not tunables: this code runs inside the user's tab, where no changed value
 * can be delivered (same reason as the extractor's own limits).
 */
/**
 * Text whose contrast with the background behind it is below this WCAG ratio counts as the background's own colour.
 * 1.2:1 is #eaeaea on white or #1a1a1a on black: near-invisible to most readers, while the weakest contrast WCAG accepts
 * for any text (3:1 for large print) and the faint grey of real placeholder or "disabled" text (about 2:1) are far above.
 */
export const MIN_TEXT_CONTRAST = 1.2;
/**
 * Opacity (the element's and its ancestors' multiplied, times the text colour's alpha) below which text counts as
 * transparent where the background is unknown (an image). 5% ink is invisible; faded UI states use 30–50%.
 */
export const MIN_VISIBLE_ALPHA = 0.05;
/** Text set smaller than this (px) is a row of dots; the smallest real print (superscripts, legal text) is 8 px up. */
export const MIN_READABLE_FONT_PX = 4;
/** A box clipping its overflow that is this thin (px) or less shows nothing of its text (the 1×1 "visually hidden" box). */
export const MAX_CLIPPED_BOX_PX = 1;

/** Elements whose contents are never read as page text: code, embeds, form controls (docs/security.md). */
export const NOT_PAGE_TEXT = new Set([
  'HEAD',
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'SVG',
  'CANVAS',
  'IFRAME',
  'OBJECT',
  'EMBED',
  'BUTTON',
  'SELECT',
  'INPUT',
  'TEXTAREA',
  'OPTION',
  'DATALIST',
  'OUTPUT',
]);

/** The attribute rules, the only ones that work without computed styles. */
export function hiddenByAttributes(el: Element): boolean {
  if (el.hasAttribute('hidden') || el.getAttribute('aria-hidden') === 'true') return true;
  const style = (el.getAttribute('style') ?? '').replace(/\s+/g, '').toLowerCase();
  return style.includes('display:none') || style.includes('visibility:hidden');
}

interface Area {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

interface Context {
  /** Product of the ancestors' opacity. */
  opacity: number;
  /** The opaque colour painted behind this point, or null where an image (or an unknown colour) is behind it. */
  background: Rgba | null;
  /** Inside `background-clip: text` with an image: the glyphs are filled by the image, not the text colour. */
  gradientText: boolean;
  /** The scrollable area text can be scrolled into, in viewport coordinates. */
  scrollArea: Area;
  /**
   * The area in effect at the nearest positioned ancestor: an absolutely positioned box escapes the clipping of
   * boxes between it and its containing block.
   */
  absoluteArea: Area;
}

type Style = CSSStyleDeclaration;

/** `clip: rect(…)` (absolutely positioned boxes only) with no area left. */
function clipHides(s: Style): boolean {
  if (s.position !== 'absolute' && s.position !== 'fixed') return false;
  const m = /^rect\(([^)]*)\)$/.exec(s.clip.trim());
  if (!m) return false;
  const [top, right, bottom, left] = m[1]!.split(/[\s,]+/).map((v) => (v === 'auto' ? NaN : parseFloat(v)));
  return (right! <= left! && !Number.isNaN(right! - left!)) || (bottom! <= top! && !Number.isNaN(bottom! - top!));
}

/** `clip-path` shapes with no area: inset(50%) or more, a zero-radius circle or ellipse. */
function clipPathHides(clipPath: string): boolean {
  const inset = /^inset\(([^)]*)\)/.exec(clipPath);
  if (inset) {
    const v = inset[1]!
      .split(/\s+round\s+/)[0]!
      .trim()
      .split(/\s+/);
    const pct = (x: string | undefined): number => (x?.endsWith('%') ? parseFloat(x) : NaN);
    const [t, r = v[0], b = v[0], l = r] = v;
    return pct(t) + pct(b) >= 100 || pct(l) + pct(r) >= 100;
  }
  return /^(?:circle|ellipse)\(\s*0(?:px|%)?(?:\s|\)|$)/.test(clipPath);
}

/** The colour a page with no background paints behind everything. */
function canvasColour(view: Window, rootStyle: Style): Rgba {
  const scheme = rootStyle.colorScheme ?? '';
  if (!scheme.includes('dark')) return WHITE;
  if (!scheme.includes('light')) return DARK_CANVAS;
  return view.matchMedia?.('(prefers-color-scheme: dark)').matches ? DARK_CANVAS : WHITE;
}

/**
 * Where text inside a box that clips its overflow can still be seen, in viewport coordinates, per axis: all of a
 * scroll container's scrollable overflow (the reader can scroll it into view), only the box itself for `hidden` or
 * `clip`, and the outer area for an axis left `visible`. Right-to-left boxes overflow to the left.
 */
function clippedArea(el: Element, s: Style, box: DOMRect, outer: Area): Area {
  const scrolls = (v: string): boolean => v === 'auto' || v === 'scroll';
  const innerLeft = box.left + el.clientLeft;
  const innerTop = box.top + el.clientTop;
  let left = outer.left;
  let right = outer.right;
  if (scrolls(s.overflowX)) {
    // scrollLeft is 0 at the start and negative when scrolled in a right-to-left box.
    left = s.direction === 'rtl' ? innerLeft + el.clientWidth - el.scrollLeft - el.scrollWidth : innerLeft - el.scrollLeft;
    right = left + el.scrollWidth;
  } else if (s.overflowX !== 'visible') [left, right] = [innerLeft, innerLeft + el.clientWidth];
  let top = outer.top;
  let bottom = outer.bottom;
  if (scrolls(s.overflowY)) [top, bottom] = [innerTop - el.scrollTop, innerTop - el.scrollTop + el.scrollHeight];
  else if (s.overflowY !== 'visible') [top, bottom] = [innerTop, innerTop + el.clientHeight];
  return { left, top, right, bottom };
}

/**
 * Nodes of the live document a person cannot see: elements (their whole subtree) and single text nodes. Callers drop
 * them from what they read; nothing in the page is changed.
 */
export function findInvisible(doc: Document): Set<Node> {
  const invisible = new Set<Node>();
  const root = doc.documentElement;
  if (!root) return invisible;
  const view = doc.defaultView;
  if (!view || typeof view.getComputedStyle !== 'function') {
    const walkAttributes = (el: Element): void => {
      for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
        if (NOT_PAGE_TEXT.has(c.tagName.toUpperCase())) continue;
        if (hiddenByAttributes(c)) invisible.add(c);
        else walkAttributes(c);
      }
    };
    walkAttributes(root);
    return invisible;
  }

  const colour = colourResolver(doc);
  const range = doc.createRange();
  const scroller = doc.scrollingElement ?? root;
  const rootStyle = view.getComputedStyle(root);
  // The document's scrollable area in viewport coordinates; a right-to-left page overflows to the left.
  const docLeft = rootStyle.direction === 'rtl' ? scroller.clientWidth - scroller.scrollWidth : 0;
  const docArea: Area = {
    left: docLeft - view.scrollX,
    top: -view.scrollY,
    right: docLeft + scroller.scrollWidth - view.scrollX,
    bottom: scroller.scrollHeight - view.scrollY,
  };

  const textHidden = (text: Text, s: Style, ctx: Context): boolean => {
    if (!/\S/.test(text.data)) return false;
    if (s.visibility !== 'visible') return true;
    if (parseFloat(s.fontSize) < MIN_READABLE_FONT_PX) return true;
    const stroked = parseFloat(s.webkitTextStrokeWidth || '0') > 0 && (colour(s.webkitTextStrokeColor)?.a ?? 1) > 0;
    if (!ctx.gradientText && !stroked && s.textShadow === 'none') {
      const fill = colour(s.webkitTextFillColor || s.color);
      if (fill) {
        const ink = { ...fill, a: fill.a * ctx.opacity };
        if (ctx.background) {
          if (contrastRatio(over(ink, ctx.background), ctx.background) < MIN_TEXT_CONTRAST) return true;
        } else if (ink.a < MIN_VISIBLE_ALPHA) return true;
      }
    }
    range.selectNodeContents(text);
    const area = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
    for (const r of range.getClientRects()) {
      if (r.width < 1 || r.height < 1) continue;
      area.left = Math.min(area.left, r.left);
      area.top = Math.min(area.top, r.top);
      area.right = Math.max(area.right, r.right);
      area.bottom = Math.max(area.bottom, r.bottom);
    }
    if (area.left === Infinity) return true; // no box with any size: not rendered, scaled to nothing
    const out = ctx.scrollArea;
    return area.right <= out.left || area.bottom <= out.top || area.left >= out.right || area.top >= out.bottom;
  };

  // The body's overflow moves to the viewport when the root's is `visible`: then the body clips nothing itself.
  const bodyClipsNothing = rootStyle.overflowX === 'visible' && rootStyle.overflowY === 'visible';

  const visit = (el: Element, parent: Context, style?: Style): void => {
    const s = style ?? view.getComputedStyle(el);
    const ownOpacity = parseFloat(s.opacity);
    const opacity = parent.opacity * (Number.isNaN(ownOpacity) ? 1 : ownOpacity);
    if (s.display === 'none' || opacity < MIN_VISIBLE_ALPHA || clipHides(s) || clipPathHides(s.clipPath)) {
      invisible.add(el);
      return;
    }
    const clipsNothing = el === root || (el === doc.body && bodyClipsNothing);
    const clipsX = !clipsNothing && s.overflowX !== 'visible';
    const clipsY = !clipsNothing && s.overflowY !== 'visible';
    // Fixed boxes are placed against the viewport (transformed ancestors aside), absolute ones against the nearest
    // positioned ancestor; either escapes the clipping of the boxes in between.
    const position = s.position;
    let scrollArea = position === 'fixed' ? docArea : position === 'absolute' ? parent.absoluteArea : parent.scrollArea;
    if ((clipsX || clipsY) && s.display !== 'inline' && s.display !== 'contents') {
      const box = el.getBoundingClientRect();
      if ((clipsX && box.width <= MAX_CLIPPED_BOX_PX) || (clipsY && box.height <= MAX_CLIPPED_BOX_PX)) {
        invisible.add(el);
        return;
      }
      scrollArea = clippedArea(el, s, box, scrollArea);
    }
    const containsAbsolute = position !== 'static' || s.transform !== 'none';
    let background = parent.background;
    const image = s.backgroundImage !== 'none';
    if (image) background = null;
    else {
      const fill = colour(s.backgroundColor);
      if (!fill) background = null;
      else if (fill.a >= 1) background = fill;
      else if (fill.a > 0) background = background && over(fill, background);
    }
    const clipText = s.backgroundClip === 'text' || s.webkitBackgroundClip === 'text';
    const ctx: Context = {
      opacity,
      background,
      gradientText: parent.gradientText || (clipText && image),
      scrollArea,
      absoluteArea: containsAbsolute ? scrollArea : parent.absoluteArea,
    };
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) {
        if (textHidden(c as Text, s, ctx)) invisible.add(c);
      } else if (c.nodeType === 1) {
        const child = c as Element;
        if (NOT_PAGE_TEXT.has(child.tagName.toUpperCase())) continue;
        if (hiddenByAttributes(child)) invisible.add(child);
        else visit(child, ctx);
      }
    }
  };

  const start: Context = {
    opacity: 1,
    background: canvasColour(view, rootStyle),
    gradientText: false,
    scrollArea: docArea,
    absoluteArea: docArea,
  };
  visit(root, start, rootStyle);
  return invisible;
}
