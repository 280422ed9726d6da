// DOM → readable text, used by the injected extractor (entrypoints/extract.ts). Only the `doc` parameter is
// touched (no globals) so it runs on linkedom documents in tests. Order: the user's selection wins; else
// Readability on a clone (parse() mutates the DOM it gets); else the text of main/article/body. Form controls
// (passwords, hidden inputs, typed values, choices) and hidden elements are never read; the URL loses its query and
// fragment (core/page/url.ts).
import { Readability } from '@mozilla/readability';
import type { ExtractionKind, PageExtraction } from './types';
import { pageUrlForPrompt } from './url';

const SKIP = new Set([
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
  'HEAD',
]);
/**
 * Limits of the injected extractor. Constants, not tunables: this code runs inside the user's tab, where no changed
 * value can be delivered. The background's own "page is empty" check (core/page/access.ts) is a tunable.
 */
/** Extracted text cap inside the page (keeps the executeScript result small). */
const MAX_EXTRACT_CHARS = 400_000;
/** Selections shorter than this are ignored (a stray click-drag). */
const MIN_SELECTION_CHARS = 2;
/** A Readability article with fewer non-space characters than this is not used (the plain text is). */
const MIN_ARTICLE_CHARS = 80;

const CHROME = new Set(['NAV', 'FOOTER', 'ASIDE', 'HEADER', 'FORM', 'DIALOG']);
const BLOCK = new Set([
  'P',
  'DIV',
  'SECTION',
  'ARTICLE',
  'MAIN',
  'UL',
  'OL',
  'LI',
  'TABLE',
  'TR',
  'BLOCKQUOTE',
  'PRE',
  'FIGURE',
  'FIGCAPTION',
  'DL',
  'DT',
  'DD',
  'HR',
  'BR',
  'ADDRESS',
  'DETAILS',
  'SUMMARY',
  'CAPTION',
]);

export interface ExtractOptions {
  maxChars?: number;
}

function isHidden(el: Element): boolean {
  if (el.hasAttribute('hidden') || el.getAttribute('aria-hidden') === 'true') return true;
  const style = (el.getAttribute('style') ?? '').replace(/\s+/g, '').toLowerCase();
  return style.includes('display:none') || style.includes('visibility:hidden');
}

/**
 * Readable text of a subtree with Markdown headings and list bullets. `dropChrome` skips nav/header/footer/aside
 * (for the raw-page fallback; Readability output is already clean).
 */
export function domToText(root: Node, dropChrome = false): string {
  const out: string[] = [];
  const walk = (node: Node, inPre: boolean): void => {
    if (node.nodeType === 3) {
      const t = node.textContent ?? '';
      out.push(inPre ? t : t.replace(/\s+/g, ' '));
      return;
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
    const el = node as Element;
    const tag = node.nodeType === 1 ? el.tagName.toUpperCase() : '';
    if (tag && (SKIP.has(tag) || isHidden(el) || (dropChrome && CHROME.has(tag)))) return;
    const heading = /^H([1-6])$/.exec(tag);
    if (heading) {
      const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim();
      if (text) out.push(`\n\n${'#'.repeat(Number(heading[1]))} ${text}\n\n`);
      return;
    }
    const block = BLOCK.has(tag);
    if (block) out.push(tag === 'LI' ? '\n- ' : '\n\n');
    if (tag === 'TD' || tag === 'TH') out.push(' | ');
    for (let c = node.firstChild; c; c = c.nextSibling) walk(c, inPre || tag === 'PRE');
    if (block) out.push('\n');
  };
  walk(root, false);
  return out
    .join('')
    .split('\n')
    .map((l) => l.replace(/[ \t]+/g, ' ').trim())
    .join('\n')
    .replace(/\n- (?=\n)/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Form controls: what the user typed or chose there (passwords, card numbers, drafts) is never read. */
const FORM_CONTROLS = new Set(['INPUT', 'TEXTAREA', 'SELECT', 'OPTION']);

/**
 * Selected text of the document. Not a selection inside a form field: Chrome's getSelection() returns the selected
 * part of a focused input's value, and form values never leave the page (docs/security.md, "Trust boundaries").
 */
function selectedText(doc: Document): string {
  const active = doc.activeElement;
  if (active && FORM_CONTROLS.has(active.tagName.toUpperCase())) return '';
  const sel = typeof doc.getSelection === 'function' ? (doc.getSelection()?.toString() ?? '') : '';
  return sel.trim();
}

function readabilityText(doc: Document): { text: string; title: string; lang: string } | null {
  try {
    // The serializer hands back the article node itself (inside the detached clone, where nothing loads or
    // runs), so no HTML is re-parsed and the live page is never touched.
    const clone = doc.cloneNode(true) as Document;
    const article = new Readability<Node>(clone, { charThreshold: 300, serializer: (node) => node }).parse();
    if (!article?.content) return null;
    const text = domToText(article.content);
    if (text.replace(/\s/g, '').length < MIN_ARTICLE_CHARS) return null;
    return { text, title: article.title ?? '', lang: article.lang ?? '' };
  } catch {
    return null; // Readability throws on odd documents; fall back to plain text
  }
}

function cap(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  const cut = text.slice(0, maxChars);
  const para = cut.lastIndexOf('\n\n');
  return { text: para > maxChars * 0.8 ? cut.slice(0, para) : cut, truncated: true };
}

export function extractPage(doc: Document, options: ExtractOptions = {}): PageExtraction {
  const maxChars = options.maxChars ?? MAX_EXTRACT_CHARS;
  const url = pageUrlForPrompt(doc.location?.href ?? doc.URL ?? '');
  const base = {
    title: (doc.title ?? '').trim(),
    url,
    lang: doc.documentElement?.getAttribute('lang') ?? '',
  };
  if ((doc.contentType ?? '').toLowerCase() === 'application/pdf') {
    return { ...base, selection: '', text: '', kind: 'pdf', truncated: false };
  }
  const selection = selectedText(doc);
  const result = (text: string, kind: ExtractionKind, extra: Partial<typeof base> = {}): PageExtraction => {
    const c = cap(text, maxChars);
    return {
      ...base,
      ...extra,
      title: base.title || extra.title || '',
      selection: cap(selection, maxChars).text,
      text: c.text,
      kind,
      truncated: c.truncated,
    };
  };
  if (selection.length >= MIN_SELECTION_CHARS) return result(selection, 'selection');
  const article = readabilityText(doc);
  if (article) return result(article.text, 'article', { title: article.title, lang: base.lang || article.lang });
  const root = doc.querySelector('main, [role="main"]') ?? doc.querySelector('article') ?? doc.body;
  const text = root ? domToText(root, root === doc.body) : '';
  return result(text, text.trim() ? 'fallback' : 'empty');
}
