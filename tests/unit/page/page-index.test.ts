import { afterEach, describe, expect, it } from 'vitest';
import { Bm25Index } from '../../../core/page/bm25';
import { chunkPage, streamChunks } from '../../../core/page/chunking';
import { chunkSearchText, LexicalIndex } from '../../../core/page/lexical-index';
import { fastTextKey, PageIndex, PageIndexCache } from '../../../core/page/page-index';
import { buildPagePrompt, PAGE_OPEN } from '../../../core/page/prompt';
import type { PageExtraction } from '../../../core/page/types';
import type { Clock } from '../../../core/tools/types';
import { resetTunables, setTunable } from '../../../core/tunables';
import { RETRIEVAL_PAGES } from '../../fixtures/retrieval/pages';
import { wholePage } from '../../fixtures/retrieval/whole-page';

/**
 * A clock that moves 1 ms each time it is read. Its pauses (sleep(0), between index slices) and its timers (the
 * question's wait) only end when the test says so, so the index can be looked at half built.
 */
function steppedClock(): Clock & { pauses: (() => void)[]; timers: (() => void)[]; drain(): Promise<void> } {
  let t = 0;
  const pauses: (() => void)[] = [];
  const timers: (() => void)[] = [];
  return {
    pauses,
    timers,
    now: () => t++,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        (ms === 0 ? pauses : timers).push(resolve);
      }),
    async drain() {
      for (let i = 0; i < 100_000; i++) {
        await new Promise((r) => setImmediate(r));
        const next = pauses.shift();
        if (!next) return;
        next();
      }
    },
  };
}

const pageOf = (text: string): PageExtraction => ({
  title: 'Long',
  url: 'https://example.org/long',
  lang: 'en',
  selection: '',
  text,
  kind: 'article',
  truncated: false,
});

afterEach(() => resetTunables());

describe('the lexical index', () => {
  it('scores every chunk exactly as BM25 built over the same texts does', () => {
    const { chunks } = chunkPage(RETRIEVAL_PAGES[0]!.text);
    const texts = chunks.map(chunkSearchText);
    const index = new LexicalIndex();
    for (const t of texts) index.add(t);
    const whole = new Bm25Index(texts);
    for (const q of RETRIEVAL_PAGES[0]!.questions.slice(0, 8)) {
      const expected = whole.scores(q.question);
      const got = index.scores(q.question);
      expect(got.size).toBe(expected.filter((s) => s > 0).length);
      for (const [i, s] of got) expect(s).toBeCloseTo(expected[i]!, 9);
    }
  });
});

describe('streamed chunks', () => {
  it('are the chunks chunkPage makes, in order, and say when the token limit cut the page', () => {
    const text = RETRIEVAL_PAGES[1]!.text;
    expect([...streamChunks(text)]).toEqual(chunkPage(text).chunks);
    const limited = streamChunks(text, { maxIndexedTokens: 2_000 });
    let step = limited.next();
    let n = 0;
    while (!step.done) {
      n++;
      step = limited.next();
    }
    expect(step.value.truncated).toBe(true);
    expect(n).toBeGreaterThan(5);
  });
});

describe('the page index', () => {
  it('indexes every word of a 250,000-word page and finds a fact in its last 5 %', async () => {
    const page = wholePage(250_000);
    expect(page.words).toBeGreaterThanOrEqual(250_000);
    const index = new PageIndex(page.text, { now: () => 0, sleep: () => Promise.resolve() });
    await index.ready;
    expect(index.done).toBe(true);
    expect(index.truncated).toBe(false);
    expect(index.chunks.at(-1)!.text).toBe(chunkPage(page.text).chunks.at(-1)!.text);
    const prompt = buildPagePrompt({ page: pageOf(page.text), question: page.late.question, mode: 'question', index });
    expect(prompt.notice).toBeNull();
    expect(prompt.user.slice(prompt.user.indexOf(PAGE_OPEN))).toContain(page.late.sentence);
    expect(page.text.indexOf(page.late.sentence) / page.text.length).toBeGreaterThan(0.95);
  });

  it('answers from what is indexed so far, says how much that is, and finishes in slices', async () => {
    setTunable('page.indexSliceMs', 4);
    const page = wholePage(20_000);
    const clock = steppedClock();
    const cache = new PageIndexCache(clock);
    const asked = cache.indexFor(page.text);
    await new Promise((r) => setImmediate(r));
    expect(clock.timers).toHaveLength(1); // the question's wait (page.indexWaitMs)
    clock.timers.shift()!();
    const partial = await asked;
    expect(partial.done).toBe(false);
    expect(partial.chunks.length).toBeGreaterThan(0);
    expect(partial.fraction).toBeGreaterThan(0);
    expect(partial.fraction).toBeLessThan(0.5);
    const early = buildPagePrompt({ page: pageOf(page.text), question: page.late.question, mode: 'question', index: partial });
    expect(early.notice).toMatch(/^I've read about \d+ % of this long page so far/);
    expect(early.user).toContain('Only part of the page is quoted.');
    expect(early.user).not.toContain(page.late.sentence);

    await clock.drain();
    await partial.ready;
    expect(partial.done).toBe(true);
    expect(cache.index(page.text)).toBe(partial); // kept: the next question does not index again
    const later = buildPagePrompt({ page: pageOf(page.text), question: page.late.question, mode: 'question', index: partial });
    expect(later.notice).toBeNull();
    expect(later.user).toContain(page.late.sentence);
  });

  it('keeps page.indexedPagesKept pages and stops building the ones it drops', async () => {
    setTunable('page.indexedPagesKept', 2);
    const clock = steppedClock();
    const cache = new PageIndexCache(clock);
    const a = cache.index(wholePage(3_000, 1).text);
    cache.index(wholePage(3_000, 2).text);
    cache.index(wholePage(3_000, 3).text);
    expect(cache.size).toBe(2);
    await clock.drain();
    await a.ready;
    expect(a.done).toBe(false); // stopped when dropped, not run to the end
  });

  it('keys pages by their whole text', () => {
    const t = wholePage(3_000).text;
    expect(fastTextKey(t)).toBe(fastTextKey(`${t}`));
    expect(fastTextKey(t)).not.toBe(fastTextKey(`${t.slice(0, -1)}x`));
    expect(fastTextKey(`a${t.slice(1)}`)).not.toBe(fastTextKey(`b${t.slice(1)}`));
  });
});

describe('extracting a whole page', () => {
  it('a 250,000-word page is read whole on the plain-text path, its headings kept, its last 5 % included', async () => {
    const { parseHTML } = await import('linkedom');
    const { extractPage } = await import('../../../core/page/extract-dom');
    const { pageHtml } = await import('../../fixtures/retrieval/whole-page');
    const page = wholePage(250_000);
    const { document } = parseHTML(pageHtml('Harbour records', page.text));
    (document as unknown as { getSelection: () => { toString(): string } }).getSelection = () => ({ toString: () => '' });
    const read = extractPage(document as unknown as Document);
    expect(read.kind).toBe('fallback');
    expect(read.truncated).toBe(false);
    expect(read.text).toContain(`## ${page.late.heading}`);
    expect(read.text).toContain(page.late.sentence);
    expect(read.text.length).toBeGreaterThan(page.text.length * 0.98);
  });
});
