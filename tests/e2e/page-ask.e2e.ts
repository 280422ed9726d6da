// "Ask about any page" (docs/tools.md, "Whole pages", "The selection", "Answers that show where") on the built
// extension. The scripted model stand-in (test builds only) answers page prompts by what is quoted in them, so what
// reached the model is what is asserted.
// Breaks that turned these red: page.maxIndexedTokens back to 60,000 (the second answer is "I only read the first
// part"), the selection guard removed from the extractor (the contenteditable selection is read), the highlight never
// attached (the view scrolls, no highlight appears), the question rewrite not wired in the offscreen document (no
// keyword prompt in the model log), the built-in thesaurus not passed to the rewrite (the guarantee question finds
// no warranty and the page "does not seem to say").
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Reply } from '../../core/protocol';
import { PAGE_OPEN } from '../../core/page/prompt';
import { REWRITE_MARK } from '../../core/page/query-rewrite';
import { ASR_BUNDLES, LLM_BUNDLE, TTS_BUNDLE } from '../../models/registry';
import { RETRIEVAL_PAGES } from '../fixtures/retrieval/pages';
import { LATE_FACT, pageHtml, wholePage } from '../fixtures/retrieval/whole-page';
import { startFixtureHub, type FixtureHub } from './fixture-hub';
import { pageTurns } from './page-turns';
import {
  downloadModels,
  clickToolbarButton,
  launchExtension,
  poll,
  request,
  sendFromPage,
  waitForLiveTunable,
  type ExtensionSession,
} from './harness';

let session: ExtensionSession;
let fixtures: FixtureHub;
let panel: Page;
let wholeTab: Page;

const ARTIFACTS = join('tests', 'artifacts');
const WHOLE_URL = 'https://en.wikipedia.org/wiki/Whole_page_e2e';
const WHOLE = wholePage(250_000);
const SELECT_URL = 'https://en.wikipedia.org/wiki/Selection_e2e';
const GUIDE_URL = 'https://en.wikipedia.org/wiki/Router_guide_e2e';
const GUIDE = RETRIEVAL_PAGES[0]!;
/** Asked in other words than the page's: it says "warranty" and "coverage", never "guarantee" or "valid". */
const GUIDE_QUESTION = 'How long is the guarantee valid for?';
const GUIDE_ANSWER = GUIDE.questions.find((q) => q.question === GUIDE_QUESTION)!.answers[0]!;
const SELECT_HTML = `<!doctype html><html lang="en"><head><title>Council minutes</title></head><body><main><article>
<h1>Council minutes</h1>
<p>The meeting opened at seven with eleven members present and the chair reading the agenda aloud.</p>
<p id="term">The committee deferred the motion sine die after a long debate about the harbour wall.</p>
<p>Members then discussed the budget for the coming year and agreed to meet again in spring.</p>
<form><textarea id="draft">placeholder</textarea></form>
<div id="editor" contenteditable="true"><p>my unsent reply 5521 about the harbour wall</p></div>
</article></main></body></html>`;

const { must, ask, lastPagePrompt } = pageTurns(() => panel, 180_000);

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  fixtures = await startFixtureHub();
  session = await launchExtension({ extensionDir: fixtures.extensionDir, toolbarClicks: true });
  await session.context.route(SELECT_URL, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: SELECT_HTML }),
  );
  await session.context.route(GUIDE_URL, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: pageHtml(GUIDE.title, GUIDE.text) }),
  );
  await session.context.route(WHOLE_URL, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: pageHtml('Harbour records', WHOLE.text) }),
  );
  panel = await session.openPage('sidepanel.html');
  await panel.setViewportSize({ width: 420, height: 860 });
  await downloadModels(panel, fixtures.hub.url, [LLM_BUNDLE.id, ASR_BUNDLES.moonshine.id, TTS_BUNDLE.id]);
  await must('settings/set', 'background', { patch: { debugPanel: true } });
});

afterAll(async () => {
  await session?.close();
  await fixtures?.close();
});

describe('ask about any page (built extension)', () => {
  it('a 250,000-word page: answers from what is indexed with a notice, then from its last 5 % once all is in', async () => {
    expect(WHOLE.words).toBeGreaterThanOrEqual(250_000);
    expect(WHOLE.text.indexOf(LATE_FACT.sentence) / WHOLE.text.length).toBeGreaterThan(0.95);
    const tab = await session.context.newPage();
    await tab.goto(WHOLE_URL);
    await clickToolbarButton(session, tab); // the user's click grants activeTab (docs/security.md)
    await panel.bringToFront();
    await must('debug/llm-script', 'offscreen', {
      rules: [
        { match: LATE_FACT.sentence, reply: 'The logbook says a grey heron nested on the north breakwater every spring.' },
        { match: 'lighthouse keeper', reply: 'The part of the page I have read does not say.' },
      ],
    });
    const question = `According to this page, ${LATE_FACT.question.charAt(0).toLowerCase()}${LATE_FACT.question.slice(1)}`;

    // No wait for the index: the question is answered from the first slices, and says so.
    await must('tunables/set', 'background', { path: 'page.indexWaitMs', value: 0 });
    await waitForLiveTunable(panel, 'page', 'indexWaitMs', 0);
    const early = await ask(question, (lines) => lines.some((l) => l.includes('does not say')));
    expect(early.join('\n')).toMatch(/I've read about \d+ % of this long page so far/);
    expect(await lastPagePrompt()).not.toContain(LATE_FACT.sentence);
    // No embedding bundle here: the LLM was first asked for keywords (core/page/query-rewrite.ts). The scripted
    // model's reply to that prompt is a sentence, not a keyword list, so the page was searched as asked.
    const log = await sendFromPage<Reply<{ prompt: string; text: string }[]>>(panel, request('debug/llm-log', 'offscreen'));
    if (!log.ok) throw new Error(log.error.message);
    const rewrite = log.data.findLast((e) => e.prompt.includes(REWRITE_MARK));
    expect(rewrite?.prompt).toContain('heron');
    expect(rewrite?.prompt).not.toContain(PAGE_OPEN);

    // With time for the whole index (built in the background since the first question), the last 5 % is found.
    await must('tunables/set', 'background', { path: 'page.indexWaitMs', value: 120_000 });
    await waitForLiveTunable(panel, 'page', 'indexWaitMs', 120_000);
    const later = await ask(question, (lines) => lines.some((l) => l.includes('grey heron')));
    expect(later.join('\n')).not.toMatch(/I've read about|only read the first part/);
    const quoted = await lastPagePrompt();
    expect(quoted).toContain(LATE_FACT.sentence);
    expect(quoted).toMatch(/\[Section: [^\]]*Appendix: the lighthouse keeper\]/);
    await must('tunables/reset', 'background', {});
    wholeTab = tab;
  });

  it('the answer lists the section it came from; a click scrolls the page there and highlights it', async () => {
    const card = panel.getByTestId('card-page-sources');
    await card.waitFor({ state: 'visible', timeout: 30_000 });
    const source = card.getByTestId('page-source').filter({ hasText: LATE_FACT.heading });
    expect(await source.count()).toBe(1);
    expect(await wholeTab.evaluate(() => window.scrollY)).toBe(0);
    // Long enough for the screenshot on a loaded machine; the default is page.sourceHighlightMs.
    await must('tunables/set', 'background', { path: 'page.sourceHighlightMs', value: 8_000 });
    await source.click();
    const shown = await poll(
      () =>
        wholeTab.evaluate(() => ({
          y: window.scrollY,
          height: document.documentElement.scrollHeight,
          marks: document.querySelectorAll('[data-sidetalk-highlight]').length,
        })),
      (s) => s.marks === 1,
      15_000,
    );
    // The appendix is in the last 5 % of the page: the view moved there.
    expect(shown.y / shown.height).toBeGreaterThan(0.9);
    const box = await wholeTab.locator('[data-sidetalk-highlight]').boundingBox();
    const para = await wholeTab.locator('p', { hasText: LATE_FACT.sentence }).boundingBox();
    expect(box && para && box.y <= para.y && box.y + box.height >= para.y + para.height).toBe(true);
    await wholeTab.screenshot({ path: join(ARTIFACTS, 'page-source-highlight.png') });
    // The highlight goes away by itself and leaves nothing in the page.
    await poll(
      () => wholeTab.evaluate(() => document.querySelectorAll('[data-sidetalk-highlight]').length),
      (n) => n === 0,
      15_000,
    );
    await must('tunables/reset', 'background', {});
    await wholeTab.close();
  });

  it("a question in other words than the page's, no embedding model, no keywords from the LLM: the built-in thesaurus finds it", async () => {
    expect(GUIDE.text).not.toMatch(/guarantee|valid/i);
    const tab = await session.context.newPage();
    await tab.goto(GUIDE_URL);
    await clickToolbarButton(session, tab);
    await panel.bringToFront();
    await must('debug/llm-script', 'offscreen', {
      rules: [
        { match: GUIDE_ANSWER, reply: 'The warranty runs out twenty-four months after you bought it.' },
        { match: GUIDE.title, reply: 'The page does not seem to say.' },
      ],
    });
    const lines = await ask(`According to this page, ${GUIDE_QUESTION.toLowerCase()}`, (l) =>
      l.some((t) => /twenty-four months|does not seem to say/.test(t)),
    );
    expect(lines.join('\n')).toContain('twenty-four months after you bought it');
    expect(await lastPagePrompt()).toContain(GUIDE_ANSWER);
    // The LLM was asked for keywords and answered no keyword list (the scripted stand-in's sentence): the words that
    // found the warranty section came from the thesaurus.
    const log = await sendFromPage<Reply<{ prompt: string; text: string }[]>>(panel, request('debug/llm-log', 'offscreen'));
    if (!log.ok) throw new Error(log.error.message);
    const rewrite = log.data.findLast((e) => e.prompt.includes(REWRITE_MARK));
    expect(rewrite?.prompt).toContain('guarantee');
    expect(rewrite?.text).not.toMatch(/warrant/i);
    await tab.close();
  });

  it('"what does this mean" acts on the selected text; a selection in a text box or an editor is not read', async () => {
    const tab = await session.context.newPage();
    await tab.goto(SELECT_URL);
    await clickToolbarButton(session, tab); // the user's click grants activeTab (docs/security.md)
    await must('debug/llm-script', 'offscreen', {
      rules: [
        { match: 'deferred the motion sine die', reply: 'It means the motion was put off with no new date.' },
        { match: 'explain this', reply: 'There is nothing selected that I can read.' },
      ],
    });
    // A selection of page text.
    await tab.evaluate(() => getSelection()?.selectAllChildren(document.getElementById('term')!));
    await panel.bringToFront();
    const lines = await ask('what does this mean?', (l) => l.some((t) => t.includes('put off with no new date')));
    expect(lines[0]).toMatch(/look/i); // the holding line
    const quoted = await lastPagePrompt();
    expect(quoted).toContain('The committee deferred the motion sine die');
    expect(quoted).not.toContain('budget for the coming year'); // only the selection is quoted

    // Text selected inside a textarea the user typed in: not read, so the words are an ordinary turn.
    await tab.fill('#draft', 'typed-secret-4411 draft of a reply');
    await tab.evaluate(() => {
      const box = document.getElementById('draft') as HTMLTextAreaElement;
      box.focus();
      box.setSelectionRange(0, 17);
    });
    const read = await sendFromPage<Reply<{ ok: boolean; page?: { selection: string; kind: string } }>>(
      panel,
      request('page/read', 'background'),
    );
    expect(read.ok && read.data.ok && read.data.page?.selection).toBe('');
    const logBefore = await sendFromPage<Reply<unknown[]>>(panel, request('debug/llm-log', 'offscreen'));
    const seen = logBefore.ok ? logBefore.data.length : 0;
    await ask('explain this', (l) => l.some((t) => t.includes('nothing selected that I can read')));
    const log = await sendFromPage<Reply<{ prompt: string }[]>>(panel, request('debug/llm-log', 'offscreen'));
    if (!log.ok) throw new Error(log.error.message);
    const since = log.data.slice(Math.max(0, seen - 1)).map((e) => e.prompt);
    expect(since.some((p) => p.includes('explain this'))).toBe(true);
    for (const p of since) {
      expect(p).not.toContain('typed-secret-4411');
      expect(p.includes('explain this') && p.includes(PAGE_OPEN)).toBe(false);
    }

    // Text selected inside a contenteditable editor: not read either.
    await tab.evaluate(() => {
      (document.activeElement as HTMLElement | null)?.blur();
      getSelection()?.selectAllChildren(document.querySelector('#editor p')!);
    });
    const edited = await sendFromPage<Reply<{ ok: boolean; page?: { selection: string } }>>(
      panel,
      request('page/read', 'background'),
    );
    expect(edited.ok && edited.data.ok && edited.data.page?.selection).toBe('');
    await tab.close();
  });

  it('logged no console errors', () => {
    expect(session.errors).toEqual([]);
  });
});
