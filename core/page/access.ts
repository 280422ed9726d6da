// Why a page cannot be read, as a typed reason and one clear sentence the avatar can say.
// Chrome refuses to script its own pages, the Web Store and the PDF viewer's own page; other failures are permission,
// error pages, pages with nothing readable yet (an SPA still rendering, a video-only page), PDFs that cannot be
// fetched or have no text layer (scans), and videos whose captions cannot be had (docs/tools.md, "PDFs", "Videos").
import { pageTunables } from '../tunables';
import type { PageExtraction } from './types';

export type PageUnavailableReason =
  | 'browser_page'
  | 'web_store'
  | 'pdf'
  | 'pdf_no_text'
  | 'pdf_too_large'
  | 'pdf_local'
  | 'no_captions'
  | 'no_permission'
  | 'file_access'
  | 'error_page'
  | 'no_tab'
  | 'empty'
  | 'unknown';

export interface PageUnavailable {
  ok: false;
  reason: PageUnavailableReason;
  message: string;
}

export type PageAccess = { ok: true } | PageUnavailable;

export const PAGE_MESSAGES: Record<PageUnavailableReason, string> = {
  browser_page: "This is one of Chrome's own pages, and Chrome doesn't let extensions read those.",
  web_store: "Chrome doesn't let extensions read the Chrome Web Store.",
  pdf: "I couldn't open this PDF to read it. Try reloading it, then ask again.",
  pdf_no_text:
    'This PDF has no text I can read: its pages look like scanned pictures. A version with selectable text would work.',
  pdf_too_large: 'This PDF is too large for me to read.',
  pdf_local:
    "Chrome doesn't let extensions read PDF files stored on this computer, even with file access on. Choose the file in the panel and I'll read it from there.",
  no_captions:
    "I couldn't get captions for this video, so I can't tell what is said in it. It may have none, or YouTube didn't hand them to me.",
  no_permission:
    "I don't have permission to read this page. Click the Sidetalk icon on this tab, or allow site access, then ask again.",
  file_access: "To read local files, turn on 'Allow access to file URLs' for Sidetalk on the extensions page.",
  error_page: 'This tab is showing an error page, so there is nothing to read.',
  no_tab: "I can't find an open tab to read.",
  empty: "I couldn't find any readable text on this page. It may still be loading, or be mostly pictures or video.",
  unknown: 'Something went wrong while reading this page.',
};

export const unavailable = (reason: PageUnavailableReason): PageUnavailable => ({
  ok: false,
  reason,
  message: PAGE_MESSAGES[reason],
});

const PDF_VIEWER_ID = 'mhjfbmdgcfjbbpaeojofohoefgiehjai';

/** Cheap check before injecting: skip URLs Chrome is known to refuse. */
export function checkUrl(url: string | undefined | null): PageAccess {
  if (!url) return unavailable('no_tab');
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return unavailable('unknown');
  }
  if (u.protocol === 'chrome-extension:' && u.hostname === PDF_VIEWER_ID) return unavailable('pdf');
  if (
    [
      'chrome:',
      'chrome-extension:',
      'chrome-search:',
      'chrome-untrusted:',
      'edge:',
      'about:',
      'devtools:',
      'view-source:',
      'brave:',
      'opera:',
      'vivaldi:',
    ].includes(u.protocol)
  ) {
    return unavailable('browser_page');
  }
  if (u.hostname === 'chromewebstore.google.com' || (u.hostname === 'chrome.google.com' && u.pathname.startsWith('/webstore'))) {
    return unavailable('web_store');
  }
  if (!['http:', 'https:', 'file:', 'data:'].includes(u.protocol)) return unavailable('browser_page');
  return { ok: true };
}

/** Maps the error thrown by chrome.scripting.executeScript to a reason. */
export function classifyInjectionError(message: string, url?: string): PageUnavailable {
  const m = message.toLowerCase();
  if (m.includes('extensions gallery') || m.includes('webstore')) return unavailable('web_store');
  if (m.includes('chrome://') || m.includes('chrome-extension://') || m.includes('cannot be scripted'))
    return unavailable('browser_page');
  if (m.includes('showing error page')) return unavailable('error_page');
  if (m.includes('no tab with id') || m.includes('no frame')) return unavailable('no_tab');
  if (m.includes('file://') || url?.startsWith('file:')) return unavailable('file_access');
  if (m.includes('permission') || m.includes('cannot access contents')) return unavailable('no_permission');
  return unavailable('unknown');
}

/** After extraction: PDF tabs not read and pages with too little readable text. */
export function assessExtraction(ex: PageExtraction): PageAccess {
  // The extractor's sign of a PDF tab (no text: the viewer's page has none) reaching here means it was not read.
  if (ex.kind === 'pdf' && !ex.text.trim()) return unavailable('pdf');
  if (ex.kind === 'selection' && ex.text.trim()) return { ok: true };
  if (ex.text.replace(/\s/g, '').length < pageTunables.minReadableChars) return unavailable('empty');
  return { ok: true };
}
