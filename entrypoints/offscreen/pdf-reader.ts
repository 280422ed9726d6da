// Reads a PDF's text with pdf.js in the offscreen document (docs/tools.md, "PDFs"). The library is loaded on the
// first PDF only; its worker is the copy bundled with the extension (wxt.config.ts), never a CDN. The text items
// of each page go to core/page/pdf-text.ts, which makes the page text with one section per page.
import type { PageRead } from '../../core/conversation/responder';
import { PAGE_MESSAGES } from '../../core/page/access';
import { pageTextFromItems, pdfPageText, type PdfTextItem } from '../../core/page/pdf-text';
import { MAX_PAGE_TEXT_CHARS } from '../../core/page/types';

function fromBase64(data: string): Uint8Array {
  const raw = atob(data);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

let library: Promise<typeof import('pdfjs-dist')> | null = null;

function pdfjs(): Promise<typeof import('pdfjs-dist')> {
  library ??= import('pdfjs-dist').then((lib) => {
    lib.GlobalWorkerOptions.workerSrc = chrome.runtime.getURL('/pdfjs/pdf.worker.min.mjs');
    return lib;
  });
  return library;
}

/** The page a `page/read` reply stands for: the tab's text as it came, or a PDF's bytes read here. */
export function pageOfReply(data: PageRead | { pdf: PdfBytes }): Promise<PageRead> {
  if (!('pdf' in data)) return Promise.resolve(data);
  return readPdf(data.pdf).catch((err: unknown) => {
    console.warn('[sidetalk] pdf.js could not read the PDF:', err);
    return { ok: false, message: PAGE_MESSAGES.pdf };
  });
}

interface PdfBytes {
  title: string;
  url: string;
  /** The file, base64. */
  data: string;
}

async function readPdf(pdf: PdfBytes): Promise<PageRead> {
  const lib = await pdfjs();
  // No eval (the extension's CSP forbids it), no font faces (only the text is wanted), errors only in the console.
  const doc = await lib.getDocument({
    data: fromBase64(pdf.data),
    isEvalSupported: false,
    disableFontFace: true,
    verbosity: 0,
  }).promise;
  try {
    const pages: string[] = [];
    let chars = 0;
    for (let n = 1; n <= doc.numPages && chars < MAX_PAGE_TEXT_CHARS; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const items: PdfTextItem[] = content.items.flatMap((item) =>
        'str' in item
          ? [
              {
                str: item.str,
                hasEOL: item.hasEOL,
                x: item.transform[4] as number,
                y: item.transform[5] as number,
                height: item.height || Math.hypot(item.transform[2] as number, item.transform[3] as number),
              },
            ]
          : [],
      );
      const text = pageTextFromItems(items);
      pages.push(text);
      chars += text.length;
      page.cleanup();
    }
    const meta = await doc.getMetadata().catch(() => null);
    const info = (meta?.info ?? {}) as { Title?: unknown };
    const title = pdf.title || (typeof info.Title === 'string' ? info.Title : '');
    const { text, pagesWithText } = pdfPageText(title, pages);
    if (!pagesWithText) return { ok: false, message: PAGE_MESSAGES.pdf_no_text };
    return {
      ok: true,
      page: {
        title,
        url: pdf.url,
        lang: '',
        selection: '',
        text: text.slice(0, MAX_PAGE_TEXT_CHARS),
        kind: 'pdf',
        truncated: text.length > MAX_PAGE_TEXT_CHARS || pages.length < doc.numPages,
      },
    };
  } finally {
    void doc.destroy();
  }
}
