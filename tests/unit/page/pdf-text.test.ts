// PDF page text → sections with page numbers (docs/tools.md, "PDFs"): the pure layout of pdf.js text items, and the
// 40-page two-column fixture read by the real pdf.js (its Node build) through the same functions as the extension.
// Breaks that turned these red: the column break dropped from pageTextFromItems (the columns run together), the
// page number taken from the count of pages with text instead of the page's own position (a blank page shifts it).
import { describe, expect, it } from 'vitest';
import { pageTextFromItems, pdfPageText, type PdfTextItem } from '../../../core/page/pdf-text';
import { buildPagePrompt } from '../../../core/page/prompt';
import { PDF_FACT, PDF_PAGES, reportPdf, scannedPdf } from '../../fixtures/pdf/report';

const line = (str: string, x: number, y: number, height = 10): PdfTextItem => ({ str, hasEOL: true, x, y, height });

async function pdfPages(bytes: Uint8Array): Promise<string[]> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await getDocument({ data: bytes, verbosity: 0, disableFontFace: true, isEvalSupported: false }).promise;
  const pages: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    const items = content.items.flatMap((i) =>
      'str' in i
        ? [{ str: i.str, hasEOL: i.hasEOL, x: i.transform[4] as number, y: i.transform[5] as number, height: i.height }]
        : [],
    );
    pages.push(pageTextFromItems(items));
  }
  await doc.destroy();
  return pages;
}

describe('PDF page text', () => {
  it('joins lines into paragraphs, mends hyphenated words, and keeps two columns apart', () => {
    const items = [
      line('The harbour master kept a log of', 40, 700),
      line('every ship that entered the chan-', 40, 688),
      line('nel after dark.', 40, 676),
      line('A new paragraph starts lower.', 40, 640),
      line('The right column begins here', 310, 700),
      line('and carries on.', 310, 688),
    ];
    expect(pageTextFromItems(items).split('\n\n')).toEqual([
      'The harbour master kept a log of every ship that entered the channel after dark.',
      'A new paragraph starts lower.',
      'The right column begins here and carries on.',
    ]);
  });

  it('items of one line without end-of-line marks make one line; empty spacing items are dropped', () => {
    const items: PdfTextItem[] = [
      { str: 'Tide ', hasEOL: false, x: 40, y: 500, height: 9 },
      { str: 'tables', hasEOL: false, x: 62, y: 500, height: 9 },
      { str: '', hasEOL: true, x: 0, y: 0, height: 0 },
      { str: 'Spring edition', hasEOL: true, x: 40, y: 489, height: 9 },
    ];
    expect(pageTextFromItems(items)).toBe('Tide tables Spring edition');
  });

  it('heads each page with its own number, skips blank pages, and keeps a "#" line from becoming a heading', () => {
    const { text, pagesWithText } = pdfPageText('Report', ['First page.', '', '# not a heading\nThird page.']);
    expect(pagesWithText).toBe(2);
    expect(text).toBe('# Report\n\n## Page 1\n\nFirst page.\n\n## Page 3\n\n # not a heading\nThird page.');
    expect(pdfPageText('', ['', ' ']).pagesWithText).toBe(0);
  });

  it('the 40-page two-column fixture: the answer is quoted from page 27 and its source says so', async () => {
    const pages = await pdfPages(reportPdf());
    expect(pages).toHaveLength(PDF_PAGES);
    const holding = pages.flatMap((p, i) => (p.includes(PDF_FACT.sentence) ? [i + 1] : []));
    expect(holding).toEqual([PDF_FACT.page]);
    const { text } = pdfPageText('Harbour annual report', pages);
    const prompt = buildPagePrompt({
      page: {
        title: 'Harbour annual report',
        url: 'https://example.org/report.pdf',
        lang: '',
        selection: '',
        text,
        kind: 'pdf',
        truncated: false,
      },
      question: PDF_FACT.question,
      mode: 'question',
    });
    expect(prompt.user).toContain(PDF_FACT.sentence);
    const source = prompt.sources.find((s) => s.snippet && text.includes(s.snippet) && s.heading === `Page ${PDF_FACT.page}`);
    expect(source?.place).toEqual({ page: PDF_FACT.page });
    expect(prompt.user).toContain(`[Section: Harbour annual report > Page ${PDF_FACT.page}]`);
  });

  it('a scanned PDF (images only) has no page with text', async () => {
    const pages = await pdfPages(scannedPdf());
    expect(pages).toHaveLength(3);
    expect(pdfPageText('Scanned letter', pages).pagesWithText).toBe(0);
  });
});
