// The PDF file a user opened in the panel for a file:// tab (docs/tools.md, "PDFs"): kept for that tab's address,
// whatever page of it the viewer shows, and only for file:// tabs.
// Breaks that turned these red: the file keyed by the address with its fragment (after a source click moved the viewer
// to #page=27 the question heard the refusal again), a kept file offered to an https tab.
import { afterEach, describe, expect, it } from 'vitest';
import { keepOpenedPdf, readPdfTab } from '../../../entrypoints/background/page-media';

const tab = (url: string) => ({ url, title: 'report.pdf' }) as chrome.tabs.Tab;

afterEach(() => {
  delete (globalThis as { chrome?: unknown }).chrome;
});

describe('a PDF file opened in the panel', () => {
  it('is read for its file:// tab, also at another page of the viewer, and kept for no other tab', async () => {
    expect(keepOpenedPdf('file:///home/u/report.pdf', { name: 'report.pdf', data: 'JVBERi0=' })).toBe(true);
    for (const url of ['file:///home/u/report.pdf', 'file:///home/u/report.pdf#page=27']) {
      const read = await readPdfTab(tab(url));
      expect(read.ok && read.pdf.data).toBe('JVBERi0=');
    }
    expect(keepOpenedPdf('https://example.org/report.pdf', { name: 'report.pdf', data: 'JVBERi0=' })).toBe(false);
    // Not a PDF ("hello"): refused, the PDF kept before stays.
    expect(keepOpenedPdf('file:///home/u/report.pdf', { name: 'notes.txt', data: 'aGVsbG8=' })).toBe(false);
    const still = await readPdfTab(tab('file:///home/u/report.pdf'));
    expect(still.ok && still.pdf.data).toBe('JVBERi0=');
  });

  it('keeps the latest two files', async () => {
    for (const n of [1, 2, 3]) keepOpenedPdf(`file:///d/${n}.pdf`, { name: `${n}.pdf`, data: `JVBERi0${n}` });
    const first = await readPdfTab(tab('file:///d/3.pdf'));
    expect(first.ok && first.pdf.data).toBe('JVBERi03');
    expect((await readPdfTab(tab('file:///d/2.pdf'))).ok).toBe(true);
    // The oldest is gone: its tab is read as any file:// PDF, which the in-tab read cannot do here.
    (globalThis as { chrome?: unknown }).chrome = { scripting: { executeScript: () => Promise.reject(new Error('no tab')) } };
    const gone = await readPdfTab({ ...tab('file:///d/1.pdf'), id: 1 });
    expect(gone.ok ? 'read' : gone.reason).toBe('pdf_local');
  });
});
