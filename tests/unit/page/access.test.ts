import { describe, expect, it } from 'vitest';
import { assessExtraction, checkUrl, classifyInjectionError } from '../../../core/page/access';
import type { PageExtraction } from '../../../core/page/types';

const page = (p: Partial<PageExtraction>): PageExtraction => ({
  title: 'T',
  url: 'https://example.org/',
  lang: 'en',
  selection: '',
  text: '',
  kind: 'article',
  truncated: false,
  ...p,
});

describe('page access', () => {
  it('rejects URLs Chrome will not let us script, with a clear sentence', () => {
    expect(checkUrl('chrome://settings/')).toMatchObject({ ok: false, reason: 'browser_page' });
    expect(checkUrl('about:blank')).toMatchObject({ ok: false, reason: 'browser_page' });
    expect(checkUrl('https://chromewebstore.google.com/detail/abc')).toMatchObject({ ok: false, reason: 'web_store' });
    expect(checkUrl('https://chrome.google.com/webstore/category/extensions')).toMatchObject({ ok: false, reason: 'web_store' });
    expect(checkUrl('chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai/index.html')).toMatchObject({
      ok: false,
      reason: 'pdf',
    });
    expect(checkUrl(undefined)).toMatchObject({ ok: false, reason: 'no_tab' });
    expect(checkUrl('https://en.wikipedia.org/wiki/Tomato')).toEqual({ ok: true });
    const r = checkUrl('chrome://newtab');
    expect(!r.ok && r.message).toBe("This is one of Chrome's own pages, and Chrome doesn't let extensions read those.");
  });

  it("maps executeScript's errors to reasons", () => {
    expect(classifyInjectionError('Cannot access a chrome:// URL').reason).toBe('browser_page');
    expect(classifyInjectionError('The extensions gallery cannot be scripted.').reason).toBe('web_store');
    expect(
      classifyInjectionError(
        'Cannot access contents of the page. Extension manifest must request permission to access the respective host.',
      ).reason,
    ).toBe('no_permission');
    expect(classifyInjectionError('Missing host permission for the tab').reason).toBe('no_permission');
    expect(classifyInjectionError('Frame with ID 0 is showing error page').reason).toBe('error_page');
    expect(classifyInjectionError('Cannot access contents of url "file:///home/a.html".', 'file:///home/a.html').reason).toBe(
      'file_access',
    );
    expect(classifyInjectionError('No tab with id: 42.').reason).toBe('no_tab');
    expect(classifyInjectionError('something new').reason).toBe('unknown');
  });

  it('treats an unrendered SPA or an unread PDF tab as unreadable, a selection as readable', () => {
    expect(assessExtraction(page({ kind: 'empty' }))).toMatchObject({ ok: false, reason: 'empty' });
    expect(assessExtraction(page({ kind: 'fallback', text: 'Loading…' }))).toMatchObject({ ok: false, reason: 'empty' });
    expect(assessExtraction(page({ kind: 'pdf' }))).toMatchObject({ ok: false, reason: 'pdf' });
    expect(assessExtraction(page({ kind: 'pdf', text: '# Report\n\n## Page 1\n\n' + 'word '.repeat(50) }))).toEqual({ ok: true });
    expect(assessExtraction(page({ kind: 'selection', text: 'Hi' }))).toEqual({ ok: true });
    expect(assessExtraction(page({ text: 'word '.repeat(50) }))).toEqual({ ok: true });
  });
});
