// A PDF's text as page text (docs/tools.md, "PDFs"): pdf.js hands over each page's text items in the order the
// file draws them (a typeset two-column page draws one column, then the next); here they become lines, lines become
// paragraphs, and each page becomes a section headed "Page N", so every quoted part says which page it is on and a
// source can open the viewer there. Pure: the offscreen document runs pdf.js and passes the items in.
import { placeHeading } from './places';

/** One text item of a page, as pdf.js's getTextContent gives it (the position is the item's baseline start). */
export interface PdfTextItem {
  str: string;
  /** pdf.js marks the item that ends a line. */
  hasEOL: boolean;
  x: number;
  y: number;
  /** Font height in points (0 for spacing items). */
  height: number;
}

interface Line {
  text: string;
  x: number;
  y: number;
  height: number;
}

function linesOf(items: readonly PdfTextItem[]): Line[] {
  const lines: Line[] = [];
  let current: Line | null = null;
  for (const item of items) {
    // A new line where pdf.js says one ended, or where the baseline moves by more than half a line.
    if (current && Math.abs(item.y - current.y) > Math.max(current.height, item.height, 1) / 2 && item.str.trim()) {
      lines.push(current);
      current = null;
    }
    if (item.str) {
      if (!current) current = { text: item.str, x: item.x, y: item.y, height: item.height };
      else current.text += item.str;
      current.height = Math.max(current.height, item.height);
    }
    if (item.hasEOL && current) {
      lines.push(current);
      current = null;
    }
  }
  if (current) lines.push(current);
  return lines.map((l) => ({ ...l, text: l.text.replace(/\s+/g, ' ').trim() })).filter((l) => l.text);
}

/**
 * A page's readable text: lines joined into paragraphs (a word hyphenated at a line end is joined again); a new
 * paragraph where the gap to the next line is more than a blank line's worth, where the next line sits above this
 * one (the top of the next column), or where it starts in another column.
 */
export function pageTextFromItems(items: readonly PdfTextItem[]): string {
  const paragraphs: string[] = [];
  let para = '';
  let prev: Line | null = null;
  for (const line of linesOf(items)) {
    const size = Math.max(prev?.height ?? 0, line.height, 1);
    const breaks =
      prev !== null && (prev.y - line.y > size * 1.8 || line.y > prev.y + size / 2 || Math.abs(line.x - prev.x) > size * 8);
    if (breaks && para) {
      paragraphs.push(para);
      para = '';
    }
    if (!para) para = line.text;
    else if (/[A-Za-z]-$/.test(para) && /^[a-z]/.test(line.text)) para = para.slice(0, -1) + line.text;
    else para += ` ${line.text}`;
    prev = line;
  }
  if (para) paragraphs.push(para);
  return paragraphs.join('\n\n');
}

/** A line of the PDF that looks like a Markdown heading would start a section of its own: indent it so it does not. */
const escapeHeading = (paragraph: string) => paragraph.replace(/^(#{1,6}\s)/gm, ' $1');

/**
 * The whole document as page text: one section per page with text ("## Page 12"), under the title. `pagesWithText`
 * is 0 for a scanned PDF (pictures of pages, no text layer): the caller says so instead of answering.
 */
export function pdfPageText(title: string, pages: readonly string[]): { text: string; pagesWithText: number } {
  const parts = [`# ${title.replace(/\s+/g, ' ').trim() || 'PDF document'}`];
  let pagesWithText = 0;
  pages.forEach((page, i) => {
    const body = page.trim();
    if (!body) return;
    pagesWithText++;
    parts.push(`## ${placeHeading({ page: i + 1 })}`, escapeHeading(body));
  });
  return { text: parts.join('\n\n'), pagesWithText };
}
