/**
 * Question rewriting for lexical page search (core/page/query-rewrite.ts): the parse of the LLM's reply, the merge
 * into weighted stems, the time cap on a fake clock and the abort.
 */
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../core/conversation/chat-message';
import { Bm25Index, queryTerms, searchTerms } from '../../../core/page/bm25';
import { LexicalIndex } from '../../../core/page/lexical-index';
import { mergeQuery, parseRewrite, REWRITE_MARK, rewriteMessages, rewriteQuery } from '../../../core/page/query-rewrite';
import type { Clock } from '../../../core/tools/types';
import { pageTunables } from '../../../core/tunables';

const QUESTION = 'How long is the guarantee valid for?';

function abortError(): Error {
  const e = new Error('aborted');
  e.name = 'AbortError';
  return e;
}

/** A clock whose sleeps end only when the test moves time past them (or their signal aborts). */
function manualClock(): Clock & { advance(ms: number): void } {
  let t = 0;
  const waits: { at: number; done: () => void }[] = [];
  return {
    now: () => t,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(abortError());
        waits.push({ at: t + ms, done: resolve });
        signal?.addEventListener('abort', () => reject(abortError()), { once: true });
      }),
    advance(ms) {
      t += ms;
      for (const w of waits.filter((x) => x.at <= t)) w.done();
    },
  };
}

/** A model that answers nothing until its request is cancelled; records the signal it was given. */
function silentModel() {
  const seen: { signal?: AbortSignal; messages?: ChatMessage[] } = {};
  return {
    seen,
    async *generate(messages: ChatMessage[], signal: AbortSignal): AsyncGenerator<string> {
      seen.signal = signal;
      seen.messages = messages;
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      yield* [];
    },
  };
}

/** A model that streams `reply` in 5-character pieces; counts the pieces read. */
function replyingModel(reply: string) {
  const seen = { pieces: 0, signal: undefined as AbortSignal | undefined };
  return {
    seen,
    async *generate(_messages: ChatMessage[], signal: AbortSignal): AsyncGenerator<string> {
      seen.signal = signal;
      for (let i = 0; i < reply.length; i += 5) {
        seen.pieces++;
        yield reply.slice(i, i + 5);
      }
    },
  };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('parseRewrite: a keyword list, or nothing', () => {
  it('reads a comma-separated list, a numbered list and a labelled line', () => {
    expect(parseRewrite('guarantee, warranty, coverage period, valid')).toEqual([
      'guarantee',
      'warranty',
      'coverage period',
      'valid',
    ]);
    expect(parseRewrite('1. warranty\n2. guarantee\n- expiry')).toEqual(['warranty', 'guarantee', 'expiry']);
    expect(parseRewrite('Keywords: "warranty", guarantee.')).toEqual(['warranty', 'guarantee']);
    expect(parseRewrite('<think>the user means a warranty</think>warranty, expiry')).toEqual(['warranty', 'expiry']);
  });

  it('empty, blank and garbage replies give no keywords', () => {
    expect(parseRewrite('')).toEqual([]);
    expect(parseRewrite('   \n\n ')).toEqual([]);
    expect(parseRewrite('!!! ### $$$, ***, @@@')).toEqual([]);
    expect(parseRewrite('<think>still thinking about it')).toEqual([]);
  });

  it('a sentence (an answer instead of keywords) gives no keywords', () => {
    expect(parseRewrite('The guarantee is valid for two years after you buy the router.')).toEqual([]);
    expect(parseRewrite('It lasts two years')).toEqual([]);
  });

  it('tool-call-like output gives no keywords, even with plausible words in it', () => {
    expect(parseRewrite('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>')).toEqual([]);
    expect(parseRewrite('{"name": "wikipedia_lookup", "arguments": {"query": "warranty"}}')).toEqual([]);
    expect(parseRewrite('warranty, <|im_start|>system, guarantee')).toEqual([]);
  });

  it('an overlong reply: at most page.rewriteMaxKeywords keywords from its first page.rewriteMaxChars', () => {
    const many = Array.from({ length: 200 }, (_, i) => `term${i}`).join(', ');
    const got = parseRewrite(many);
    expect(got).toHaveLength(pageTunables.rewriteMaxKeywords);
    expect(got[0]).toBe('term0');
    // Fewer, longer items: the one cut at the character cap is dropped, not kept half.
    const items = Array.from({ length: 7 }, (_, i) => `keyword${i} ${'q'.repeat(20)}`);
    const reply = items.join(', ');
    expect(reply.length).toBeGreaterThan(pageTunables.rewriteMaxChars);
    const whole = items.filter((_, i) => items.slice(0, i + 1).join(', ').length <= pageTunables.rewriteMaxChars);
    expect(whole.length).toBeLessThan(items.length);
    expect(parseRewrite(reply)).toEqual(whole);
    expect(parseRewrite(`${'a'.repeat(60)}, warranty`)).toEqual(['warranty']);
  });
});

describe('mergeQuery: the question first, added stems lighter, bounded', () => {
  it("keeps the question's stems at 1 and adds the keywords' new stems at page.rewriteTermWeight", () => {
    const q = queryTerms(mergeQuery(QUESTION, ['guarantee', 'warranty', 'coverage']));
    for (const t of searchTerms(QUESTION)) expect(q.get(t)).toBe(1);
    expect(q.get(searchTerms('warranty')[0]!)).toBe(pageTunables.rewriteTermWeight);
    expect(q.get(searchTerms('coverage')[0]!)).toBe(pageTunables.rewriteTermWeight);
    expect(pageTunables.rewriteTermWeight).toBeLessThanOrEqual(1);
  });

  it('adds at most page.rewriteMaxAddedTerms stems, in the order given', () => {
    const words = Array.from({ length: 40 }, (_, i) => `zeta${String.fromCharCode(97 + (i % 26))}${i}`);
    const q = queryTerms(mergeQuery(QUESTION, words));
    expect(q.size).toBe(searchTerms(QUESTION).length + pageTunables.rewriteMaxAddedTerms);
    expect([...q.keys()].at(-1)).toBe(searchTerms(words[pageTunables.rewriteMaxAddedTerms - 1]!)[0]);
  });

  it('nothing new to add: the question as asked', () => {
    expect(mergeQuery(QUESTION, [])).toBe(QUESTION);
    expect(mergeQuery(QUESTION, ['guarantee', 'valid'])).toBe(QUESTION);
  });
});

describe('weighted stems in BM25 (both indexes)', () => {
  const texts = ['the warranty lasts two years', 'coverage expires after purchase', 'the kettle boils water fast'];
  const lexical = new LexicalIndex();
  texts.forEach((t) => lexical.add(t));
  const bm25 = new Bm25Index(texts);
  const [warranty, coverage] = [searchTerms('warranty')[0]!, searchTerms('coverage')[0]!];

  it("a stem's part of the score scales with its weight; a plain question weighs each stem 1", () => {
    const full = lexical.scores('warranty').get(0)!;
    expect(full).toBeGreaterThan(0);
    expect(lexical.scores(new Map([[warranty, 0.5]])).get(0)).toBeCloseTo(full / 2, 10);
    expect(bm25.scores(new Map([[warranty, 0.5]]))[0]).toBeCloseTo(full / 2, 10);
    expect(bm25.scores('warranty coverage')).toEqual(
      bm25.scores(
        new Map([
          [warranty, 1],
          [coverage, 1],
        ]),
      ),
    );
  });

  it("a question's own stem outranks an added one of the same rarity", () => {
    const merged = new Map([
      [coverage, 1],
      [warranty, pageTunables.rewriteTermWeight],
    ]);
    const scores = lexical.scores(merged);
    expect(scores.get(1)!).toBeGreaterThan(scores.get(0)!);
  });
});

describe('rewriteQuery: the LLM within a cap, one signal', () => {
  it('asks with the question only, and merges the reply', async () => {
    const model = replyingModel('warranty, coverage');
    const got = queryTerms(await rewriteQuery(QUESTION, new AbortController().signal, { ...model, clock: manualClock() }));
    expect(got.get(searchTerms('warranty')[0]!)).toBe(pageTunables.rewriteTermWeight);
    const prompt = rewriteMessages(QUESTION);
    expect(prompt[0]!.content).toContain(REWRITE_MARK);
    expect(prompt.map((m) => m.content).join('\n')).toContain(QUESTION);
  });

  it('past page.rewriteCapMs the question is searched as asked and the generation is stopped', async () => {
    const clock = manualClock();
    const model = silentModel();
    let result: unknown = 'pending';
    void rewriteQuery(QUESTION, new AbortController().signal, { generate: model.generate, clock }).then((r) => (result = r));
    await flush();
    clock.advance(pageTunables.rewriteCapMs - 1);
    await flush();
    expect(result).toBe('pending');
    expect(model.seen.signal?.aborted).toBe(false);
    clock.advance(1);
    await flush();
    expect(result).toBe(QUESTION);
    expect(model.seen.signal?.aborted).toBe(true);
  });

  it('an abort returns the question at once and stops the generation', async () => {
    const ctrl = new AbortController();
    const model = silentModel();
    const pending = rewriteQuery(QUESTION, ctrl.signal, { generate: model.generate, clock: manualClock() });
    await flush();
    expect(model.seen.signal?.aborted).toBe(false);
    ctrl.abort();
    expect(await pending).toBe(QUESTION);
    expect(model.seen.signal?.aborted).toBe(true);
    // Already aborted: the model is not asked.
    const unasked = silentModel();
    expect(await rewriteQuery(QUESTION, ctrl.signal, { generate: unasked.generate, clock: manualClock() })).toBe(QUESTION);
    expect(unasked.seen.signal).toBeUndefined();
  });

  it('a rambling model is read only up to page.rewriteMaxChars, then stopped', async () => {
    const model = replyingModel(`warranty, ${'blah '.repeat(2_000)}`);
    const got = await rewriteQuery(QUESTION, new AbortController().signal, { ...model, clock: manualClock() });
    expect(model.seen.pieces).toBeLessThanOrEqual(Math.ceil(pageTunables.rewriteMaxChars / 5) + 1);
    expect(model.seen.signal?.aborted).toBe(true);
    expect(queryTerms(got).get(searchTerms('warranty')[0]!)).toBe(pageTunables.rewriteTermWeight);
  });

  it('a failing model, or a bad reply: the question as asked', async () => {
    const clock = manualClock();
    const failing = {
      async *generate(): AsyncGenerator<string> {
        yield* [];
        throw new Error('worker died');
      },
    };
    expect(await rewriteQuery(QUESTION, new AbortController().signal, { ...failing, clock })).toBe(QUESTION);
    const tool = replyingModel('<tool_call>{"name":"get_time","arguments":{}}</tool_call>');
    expect(await rewriteQuery(QUESTION, new AbortController().signal, { ...tool, clock })).toBe(QUESTION);
  });
});
