/**
 * Helpers for the first-run and error-state e2e tests (issue #19): a watcher that records every raw error text that
 * ever appears in a page's DOM, and screenshots in light and dark.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { request, screenshotColours, sendFromPage, waitForOffscreen, type ExtensionSession } from './harness';

/**
 * Text that must never reach the page: request names in failures, exception names, stack frames, extension URLs,
 * protocol codes. Written here on their own (not imported from core/ux/user-errors.ts), so a gap in the product's
 * list is a gap these tests can see.
 */
export const RAW_PATTERNS: readonly string[] = [
  '"[a-z-]+/[a-z-]+" failed',
  '"[a-z-]+/[a-z-]+" got no answer',
  '\\b[A-Za-z]*Error:',
  '\\bat [^\\s()]+ \\(?[^\\s()]+:\\d+:\\d+',
  'at chrome-extension://',
  'chrome-extension://',
  '\\b(handler_failed|wrong_target|unknown_type)\\b',
  'Bad (payload|result|reply|context) (for|of|to) "',
  '\\[object Object\\]',
];

/**
 * Installed in every page before its own scripts: after each DOM change, the page's text and its title/aria-label
 * attributes are checked against RAW_PATTERNS; every hit is kept in `window.__rawSeen` with the text around it.
 * The orb's accessible label is logged too (`__orbLabels`), so a test can tell whether it ever said "listening".
 */
export async function watchForRawErrors(context: BrowserContext): Promise<void> {
  await context.addInitScript((patterns: readonly string[]) => {
    const res = patterns.map((p) => new RegExp(p));
    const w = window as unknown as { __rawSeen: string[]; __orbLabels: string[] };
    w.__rawSeen = [];
    w.__orbLabels = [];
    const texts = (): string[] => {
      const out = [document.body?.textContent ?? ''];
      for (const el of document.querySelectorAll('[title], [aria-label], [placeholder], [aria-valuetext]'))
        for (const a of ['title', 'aria-label', 'placeholder', 'aria-valuetext']) out.push(el.getAttribute(a) ?? '');
      return out;
    };
    const check = () => {
      for (const text of texts())
        for (const re of res) {
          const m = re.exec(text);
          if (m) w.__rawSeen.push(`${re.source} → …${text.slice(Math.max(0, m.index - 60), m.index + 120)}…`);
        }
      const orb = document.querySelector('[data-testid="orb"] .visually-hidden')?.textContent ?? null;
      if (orb !== null && w.__orbLabels.at(-1) !== orb) w.__orbLabels.push(orb);
    };
    let queued = false;
    const observer = new MutationObserver(() => {
      if (queued) return;
      queued = true;
      queueMicrotask(() => {
        queued = false;
        check();
      });
    });
    const start = () => {
      observer.observe(document.documentElement, { subtree: true, childList: true, characterData: true, attributes: true });
      check();
    };
    if (document.documentElement) start();
    else document.addEventListener('DOMContentLoaded', start, { once: true });
  }, RAW_PATTERNS);
}

/** Raw error text any watched page has shown so far (empty when none). */
export async function rawSeen(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __rawSeen?: string[] }).__rawSeen ?? ['watcher not installed']);
}

/** Every accessible label the orb had, in order. */
export async function orbLabels(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __orbLabels?: string[] }).__orbLabels ?? []);
}

/**
 * Saves `<name>-light.png` and `<name>-dark.png` in tests/artifacts (the user's system scheme, as the panel follows
 * it); checks each is a real picture and that the dark one really is dark (the page background differs).
 */
export async function shootBoth(page: Page, name: string): Promise<void> {
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.emulateMedia({ colorScheme: 'light' });
  expect(await screenshotColours(page, `${name}-light`)).toBeGreaterThan(20);
  const light = await background();
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await screenshotColours(page, `${name}-dark`)).toBeGreaterThan(20);
  expect(await background()).not.toBe(light);
  await page.emulateMedia({ colorScheme: 'light' });
}

/**
 * Opens the side panel as a new user sees it, with the raw-error watcher on, and points it at the test's stand-ins:
 * the local hub in place of huggingface.co, and the CPU (SwiftShader's WebGPU is too slow on 2 shared cores for the
 * fixture LLM's long generations).
 */
export async function openPanelOnFixtures(session: ExtensionSession, hubUrl: string): Promise<Page> {
  await watchForRawErrors(session.context);
  const panel = await session.openPage('sidepanel.html');
  await panel.setViewportSize({ width: 420, height: 900 });
  await waitForOffscreen(session, panel);
  await sendFromPage(panel, request('settings/set', 'background', { patch: { mirrorBaseUrl: hubUrl, computeBackend: 'wasm' } }));
  return panel;
}
