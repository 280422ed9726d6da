import { z } from 'zod';
import type { Handlers, ShowSectionSchema } from '../../core/protocol';
import { assessExtraction, checkUrl, classifyInjectionError, PAGE_MESSAGES } from '../../core/page/access';
import type { PageExtraction } from '../../core/page/types';
import { showSection } from '../../core/page/show-section';
import { pageUrlForPrompt } from '../../core/page/url';
import { samePage, watchVideoId } from '../../core/page/youtube';
import { keepOpenedPdf, readPdfTab, readVideoTab, showMediaPlace, type PdfRead } from './page-media';
import { pageTunables } from '../../core/tunables';
import { systemClock } from '../../core/tools/clock';
import { createToolExecutor } from '../../core/tools/executor';
import { createTimeTool } from '../../core/tools/time';
import type { ToolResult } from '../../core/tools/types';
import { createWeatherClient } from '../../core/tools/weather';
import { createWikipediaClient } from '../../core/tools/wikipedia';
import { TEST_HOOKS } from '../../core/build-flags';

/**
 * Developer override of the tool API endpoints (tests point them at a local server shaped like the real APIs).
 * Test builds only (docs/security.md); unset in normal use, where only Open-Meteo and Wikipedia are contacted.
 */
const EndpointsSchema = z.object({
  geocodingUrl: z.string().url().optional(),
  forecastUrl: z.string().url().optional(),
  wikipediaBaseUrl: z.string().url().optional(),
});
const ENDPOINTS_KEY = 'devToolEndpoints';

const USER_AGENT = `Sidetalk/${chrome.runtime.getManifest().version} (local voice assistant extension; no contact address configured)`;

type ShowSection = z.infer<typeof ShowSectionSchema>;

async function executor() {
  // The release build never reads the override: only the documented hosts can be contacted there.
  const stored = TEST_HOOKS
    ? EndpointsSchema.safeParse((await chrome.storage.local.get(ENDPOINTS_KEY))[ENDPOINTS_KEY] ?? {})
    : null;
  const endpoints = stored?.success ? stored.data : {};
  const fetchFn = globalThis.fetch.bind(globalThis);
  const weather = createWeatherClient({
    fetch: fetchFn,
    clock: systemClock,
    ...(endpoints.geocodingUrl ? { geocodingUrl: endpoints.geocodingUrl } : {}),
    ...(endpoints.forecastUrl ? { forecastUrl: endpoints.forecastUrl } : {}),
  });
  const wikiBase = endpoints.wikipediaBaseUrl;
  const wikipedia = createWikipediaClient({
    fetch: fetchFn,
    clock: systemClock,
    userAgent: USER_AGENT,
    ...(wikiBase
      ? { baseUrl: (lang: string) => wikiBase.replace(encodeURIComponent('{lang}'), lang).replace('{lang}', lang) }
      : {}),
  });
  const time = createTimeTool({
    clock: systemClock,
    defaultTimeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    geocode: weather.geocode,
  });
  return createToolExecutor({ weather, wikipedia, time, locale: navigator.language || 'en-US' });
}

/**
 * The tab the user means: the active one, or, when Sidetalk itself is open as a tab (popped out), the web tab used
 * most recently in that window.
 */
async function pageTab(): Promise<chrome.tabs.Tab | undefined> {
  const ours = chrome.runtime.getURL('');
  // Our own pages open as tabs are known by their contexts: Chrome 150 no longer shows an extension the URL of its
  // own tabs without the "tabs" permission (docs/tools.md, "Which tab").
  const contexts = await chrome.runtime.getContexts({ contextTypes: ['TAB' as chrome.runtime.ContextType] });
  const ourTabs = new Set(contexts.map((c) => c.tabId));
  const tabs = await chrome.tabs.query({ lastFocusedWindow: true });
  const isOurs = (t: chrome.tabs.Tab) => ourTabs.has(t.id ?? -1) || (t.url ?? t.pendingUrl ?? '').startsWith(ours);
  const active = tabs.find((t) => t.active);
  if (active && !isOurs(active)) return active;
  return tabs.filter((t) => !isOurs(t) && !t.active).sort((a, b) => (b.lastAccessed ?? 0) - (a.lastAccessed ?? 0))[0] ?? active;
}

/**
 * Reads the user's tab through the injected extractor; every failure becomes a sentence the assistant can say. A
 * YouTube watch page is read as its captions; a PDF comes back as its bytes, for the offscreen document to read.
 */
async function readActivePage(): Promise<
  { ok: true; page: PageExtraction } | PdfRead | { ok: false; message: string; reason?: string }
> {
  const tab = await pageTab();
  const access = checkUrl(tab?.url ?? tab?.pendingUrl);
  if (!access.ok) return { ok: false, message: access.message };
  try {
    const [result] = await chrome.scripting.executeScript({ target: { tabId: tab!.id! }, files: ['/extract.js'] });
    const extracted = result?.result as PageExtraction | undefined;
    if (!extracted || typeof extracted.text !== 'string') return { ok: false, message: "I couldn't read this page." };
    if (watchVideoId(tab!.url)) {
      // The captions are the page; text the user selected there (a comment, the description) is still theirs to ask about.
      const video = await readVideoTab(tab!);
      return video.ok
        ? { ok: true, page: { ...video.page, selection: extracted.selection } }
        : { ok: false, message: video.message };
    }
    if (extracted.kind === 'pdf') {
      const pdf = await readPdfTab(tab!);
      return pdf.ok ? pdf : { ok: false, message: pdf.message, reason: pdf.reason };
    }
    // Again here, whatever the tab handed back: the address goes on without its query or fragment.
    const page = { ...extracted, url: pageUrlForPrompt(String(extracted.url)) };
    const verdict = assessExtraction(page);
    return verdict.ok ? { ok: true, page } : { ok: false, message: verdict.message };
  } catch (err) {
    return { ok: false, message: classifyInjectionError(err instanceof Error ? err.message : String(err), tab?.url).message };
  }
}

/**
 * Takes the user's tab to a source of a page answer, if the tab still shows that page: scrolls to it and highlights
 * it, or for a PDF opens the viewer at its page, or for a video seeks to its time.
 */
async function showPageSection(source: ShowSection): Promise<{ ok: boolean; message?: string }> {
  const { url, heading, snippet } = source;
  const tab = await pageTab();
  if (!tab?.id || !samePage(tab.url ?? tab.pendingUrl ?? '', url, pageUrlForPrompt))
    return { ok: false, message: 'That page is no longer open in this tab.' };
  try {
    if (!tab.active) await chrome.tabs.update(tab.id, { active: true });
    const media = await showMediaPlace(tab, source);
    if (media) return media;
    const [result] = await chrome.scripting.executeScript({
      target: { tabId: tab.id },
      func: showSection,
      args: [heading, snippet, pageTunables.sourceHighlightMs],
    });
    return result?.result === true ? { ok: true } : { ok: false, message: "I couldn't find that part of the page any more." };
  } catch (err) {
    return { ok: false, message: classifyInjectionError(err instanceof Error ? err.message : String(err), tab.url).message };
  }
}

/** The PDF file the user opened in the panel, kept for the file:// tab it belongs to. */
async function keepLocalPdf(file: { name: string; data: string }): Promise<{ ok: boolean; message?: string }> {
  const tab = await pageTab();
  const href = tab?.url ?? '';
  if (!href.startsWith('file:')) return { ok: false, message: 'The tab no longer shows a PDF from this computer.' };
  if (keepOpenedPdf(href, file)) return { ok: true };
  return { ok: false, message: file.data.startsWith('JVBER') ? PAGE_MESSAGES.pdf_too_large : "That file isn't a PDF." };
}

export function createToolHandlers(): Pick<
  Handlers<'background'>,
  'tools/run' | 'page/read' | 'page/show-section' | 'page/local-pdf'
> {
  let run: ReturnType<typeof createToolExecutor> | null = null;
  return {
    'tools/run': async ({ call }) => {
      run ??= await executor();
      const result: ToolResult = await run(call, AbortSignal.timeout(15_000));
      return result as unknown as z.infer<typeof import('../../core/protocol').ToolResultSchema>;
    },
    'page/read': () => readActivePage(),
    'page/show-section': (source) => showPageSection(source),
    'page/local-pdf': (file) => keepLocalPdf(file),
  };
}
