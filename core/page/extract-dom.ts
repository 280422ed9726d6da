// DOM → readable text, used by the injected extractor (entrypoints/extract.ts). Only the `doc` parameter is
// touched (no globals) so it runs on linkedom documents in tests. Order: the user's selection wins; else
// Readability on a clone (parse() mutates the DOM it gets); else the text of main/article/body. Form controls
// (passwords, hidden inputs, typed values, choices) are never read, and neither is text a person cannot see: one
// visibility pass over the live page (core/page/visibility.ts) finds it first, because a clone has no computed
// styles; each path then leaves those nodes out. The URL loses its query and fragment (core/page/url.ts).
import { Readability } from '@mozilla/readability';
import { editableRoots, selectionInEditable } from './selection-guard';
import { MAX_PAGE_TEXT_CHARS, type ExtractionKind, type PageExtraction } from './types';
import { pageUrlForPrompt } from './url';
import { findInvisible, hiddenByAttributes, NOT_PAGE_TEXT } from './visibility';

/**
 * Limits of the injected extractor. Constants, not tunables: this code runs inside the user's tab, where no changed
 * value can be delivered. The background's own "page is empty" check (core/page/access.ts) is a tunable.
 */
/** Selections shorter than this are ignored (a stray click-drag). */
const MIN_SELECTION_CHARS = 2;
/** A Readability article with fewer non-space characters than this is not used (the plain text is). */
const MIN_ARTICLE_CHARS = 80;
/**
 * Past this many characters of page text Readability is skipped and the plain-text path is taken: on a 240,000-word
 * page Readability cost more than twice the plain-text walk (docs/tools.md, "Whole pages"), and on a page that long
 * the main text dominates what is read anyway.
 */
const READABILITY_MAX_CHARS = 400_000;

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

export interface DomToTextOptions {
  /** Skip nav/header/footer/aside (for the raw-page fallback; Readability output is already clean). */
  dropChrome?: boolean;
  /** Nodes a person cannot see (core/page/visibility.ts), left out with their subtrees. */
  invisible?: ReadonlySet<Node>;
  /** Only the part of the text inside this range (a selection). */
  range?: Range;
}

/** Readable text of a subtree with Markdown headings and list bullets. */
export function domToText(root: Node, options: DomToTextOptions = {}): string {
  const { dropChrome = false, invisible, range } = options;
  const out: string[] = [];
  const walk = (node: Node, inPre: boolean): void => {
    if (invisible?.has(node) || (range && !range.intersectsNode(node))) return;
    if (node.nodeType === 3) {
      let t = node.textContent ?? '';
      if (range && node === range.endContainer) t = t.slice(0, range.endOffset);
      if (range && node === range.startContainer) t = t.slice(range.startOffset);
      out.push(inPre ? t : t.replace(/\s+/g, ' '));
      return;
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
    const el = node as Element;
    const tag = node.nodeType === 1 ? el.tagName.toUpperCase() : '';
    if (tag && (NOT_PAGE_TEXT.has(tag) || hiddenByAttributes(el) || editable(el) || (dropChrome && CHROME.has(tag)))) return;
    const heading = /^H([1-6])$/.exec(tag);
    if (heading) {
      // The heading's own visible text (its children walked like any other), on one line.
      const start = out.length;
      for (let c = node.firstChild; c; c = c.nextSibling) walk(c, false);
      const text = out.splice(start).join('').replace(/\s+/g, ' ').trim();
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
 * An editing surface (`contenteditable`: a mail draft, a document editor, a comment box): what the user types there is
 * theirs, like a form value, and is never read. An editable region's whole subtree is left out.
 */
export function editable(el: Element): boolean {
  // The attribute, not isContentEditable: a region's subtree is skipped at its root, and inEditable() walks up.
  const value = el.getAttribute('contenteditable');
  return value !== null && value.trim().toLowerCase() !== 'false';
}

/** The focused element, looking into open shadow roots (a field focused inside a web component). */
function deepActiveElement(doc: Document): Element | null {
  let active = doc.activeElement;
  for (let depth = 0; active?.shadowRoot?.activeElement && depth < 32; depth++) active = active.shadowRoot.activeElement;
  return active;
}

/** Inside an editing surface or a form control (an element or a text node's parent). */
function inEditable(node: Node | null): boolean {
  for (let n: Node | null = node; n; n = n.parentNode) {
    if (n.nodeType !== 1) continue;
    const el = n as Element;
    if (editable(el) || FORM_CONTROLS.has(el.tagName.toUpperCase())) return true;
  }
  return false;
}

/**
 * Selected text of the document. Not a selection inside a form field: Chrome's getSelection() returns the selected
 * part of a focused input's value, and form values never leave the page (docs/security.md, "Trust boundaries").
 * Chrome's own selection text would include selected text nobody can see (white on white, off-screen), so when the
 * selection touches such text it is rebuilt from the visible nodes of its ranges.
 */
function selectedText(doc: Document, invisible: ReadonlySet<Node>): string {
  if ((doc.designMode ?? '').toLowerCase() === 'on') return '';
  const active = deepActiveElement(doc);
  if (active && (FORM_CONTROLS.has(active.tagName.toUpperCase()) || inEditable(active))) return '';
  const sel = typeof doc.getSelection === 'function' ? doc.getSelection() : null;
  if (!sel || selectionInEditable(doc, sel)) return '';
  if (inEditable(sel.anchorNode ?? null) || inEditable(sel.focusNode ?? null)) return '';
  const ranges: Range[] = [];
  for (let i = 0; i < (sel.rangeCount ?? 0); i++) ranges.push(sel.getRangeAt(i));
  // Editable regions inside a wider selection are left out like hidden text (core/page/selection-guard.ts).
  const editable = editableRoots(doc);
  if (editable.length) invisible = new Set([...invisible, ...editable]);
  const touchesInvisible = ranges.some((r) => [...invisible].some((n) => r.intersectsNode(n)));
  if (!touchesInvisible) return sel.toString().trim();
  return ranges
    .map((range) => domToText(range.commonAncestorContainer, { invisible, range }))
    .filter(Boolean)
    .join('\n\n')
    .trim();
}

/**
 * Readability on a clone of the live document with the invisible nodes removed. The clone has the live tree's exact
 * shape, so the two are walked side by side to find each node's copy.
 */
function readabilityText(doc: Document, invisible: ReadonlySet<Node>): { text: string; title: string; lang: string } | null {
  try {
    const clone = doc.cloneNode(true) as Document;
    // Editing surfaces go before Readability sees the page (a clone keeps the attribute; inherited editability is
    // dropped with its region).
    for (const el of [...clone.querySelectorAll('[contenteditable]')]) if (editable(el)) el.parentNode?.removeChild(el);
    if (invisible.size) {
      const drop: Node[] = [];
      const pair = (live: Node, copy: Node): void => {
        for (let a = live.firstChild, b = copy.firstChild; a && b; a = a.nextSibling, b = b.nextSibling) {
          if (invisible.has(a)) drop.push(b);
          else if (a.firstChild) pair(a, b);
        }
      };
      pair(doc, clone);
      for (const node of drop) node.parentNode?.removeChild(node);
    }
    // The serializer hands back the article node itself (inside the detached clone, where nothing loads or
    // runs), so no HTML is re-parsed and the live page is never touched.
    const article = new Readability<Node>(clone, { charThreshold: 300, serializer: (node) => node }).parse();
    if (!article?.content) return null;
    const text = domToText(article.content);
    if (text.replace(/\s/g, '').length < MIN_ARTICLE_CHARS) return null;
    return { text, title: article.title ?? '', lang: article.lang ?? '' };
  } catch {
    return null; // Readability throws on odd documents; fall back to plain text
  }
}

/** True for a page too long for Readability within the extraction time goal (READABILITY_MAX_CHARS). */
function tooLongForReadability(doc: Document): boolean {
  return (doc.body?.textContent?.length ?? 0) > READABILITY_MAX_CHARS;
}

function cap(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  const cut = text.slice(0, maxChars);
  const para = cut.lastIndexOf('\n\n');
  return { text: para > maxChars * 0.8 ? cut.slice(0, para) : cut, truncated: true };
}

export function extractPage(doc: Document, options: ExtractOptions = {}): PageExtraction {
  // A document in design mode is an editing surface as a whole: nothing of it is read.
  const designMode = (doc.designMode ?? '').toLowerCase() === 'on';
  const maxChars = options.maxChars ?? MAX_PAGE_TEXT_CHARS;
  const url = pageUrlForPrompt(doc.location?.href ?? doc.URL ?? '');
  const base = {
    title: (doc.title ?? '').trim(),
    url,
    lang: doc.documentElement?.getAttribute('lang') ?? '',
  };
  if ((doc.contentType ?? '').toLowerCase() === 'application/pdf') {
    return { ...base, selection: '', text: '', kind: 'pdf', truncated: false };
  }
  if (designMode) return { ...base, selection: '', text: '', kind: 'empty', truncated: false };
  const invisible = findInvisible(doc);
  const selection = selectedText(doc, invisible);
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
  const article = tooLongForReadability(doc) ? null : readabilityText(doc, invisible);
  if (article) return result(article.text, 'article', { title: article.title, lang: base.lang || article.lang });
  const root = doc.querySelector('main, [role="main"]') ?? doc.querySelector('article') ?? doc.body;
  const text = root ? domToText(root, { dropChrome: root === doc.body, invisible }) : '';
  return result(text, text.trim() ? 'fallback' : 'empty');
}
