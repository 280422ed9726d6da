/**
 * Where question rewriting runs (core/conversation/responder.ts, wired as the offscreen document wires it): only for
 * page questions searched lexically (no dense scores); with the embeddings' scores, and for summaries, the LLM is
 * never asked for keywords and the prompt is what it was.
 */
import { describe, expect, it } from 'vitest';
import { createResponder, type LlmMessage, type ResponderDeps } from '../../../core/conversation/responder';
import type { UserTurn } from '../../../core/engine/types';
import { localRewriteAnswer, REWRITE_MARK, rewriteQuery } from '../../../core/page/query-rewrite';
import { KETTLE_ANSWER, KETTLE_PAGE, KETTLE_QUESTION, kettleDenseScores } from '../../fixtures/retrieval/kettle-page';
import { fakeClock } from '../tools/fake-clock';

const ANSWER = KETTLE_ANSWER;
const PAGE = KETTLE_PAGE;
const QUESTION = KETTLE_QUESTION;
const KEYWORDS = 'warranty, guarantee, coverage, expiry date';

function world(opts: { similarity?: ResponderDeps['pageSimilarity']; rewrite?: boolean }) {
  const prompts: LlmMessage[][] = [];
  let rewrites = 0;
  const generate: ResponderDeps['generate'] = async function* (messages) {
    prompts.push(messages);
    if (messages[0]!.content.includes(REWRITE_MARK)) {
      rewrites++;
      yield KEYWORDS;
    } else yield 'ok';
  };
  // A clock whose cap never passes first: the scripted reply always comes in time.
  const clock = { ...fakeClock(), sleep: () => new Promise<void>(() => undefined) };
  const deps: ResponderDeps = {
    generate,
    runTool: () => Promise.reject(new Error('no tools here')),
    readPage: async () => ({ ok: true, page: PAGE }),
    systemPrompt: () => 'You are Sidetalk.',
    onCard: () => undefined,
    ...(opts.similarity ? { pageSimilarity: opts.similarity } : {}),
    ...(opts.rewrite ? { rewriteQuery: (q, s) => rewriteQuery(q, s, { generate, clock }) } : {}),
  };
  return { responder: createResponder(deps), prompts, rewrites: () => rewrites };
}

const turn = (text: string): UserTurn => ({ turnId: 't1', text, history: [], memory: [], localTime: '', backgroundBusy: false });

async function pagePrompt(w: ReturnType<typeof world>, text = QUESTION): Promise<string> {
  await w.responder.route(turn(text))!.run(new AbortController().signal);
  return w.prompts.at(-1)!.find((m) => m.role === 'user')!.content;
}

const understanding = kettleDenseScores;

describe('responder: question rewriting on the lexical path only', () => {
  it('without embeddings, the keywords find the section the question missed; the user line is unchanged', async () => {
    const plain = await pagePrompt(world({}));
    expect(plain).not.toContain(ANSWER);
    const w = world({ rewrite: true, similarity: async () => null });
    const prompt = await pagePrompt(w);
    expect(w.rewrites()).toBe(1);
    expect(prompt).toContain(ANSWER);
    expect(prompt).toMatch(/\nUser: [^\n]*how long is my warranty good for\??$/);
    expect(prompt).not.toContain('expiry date');
  });

  it('with the embeddings answering, the rewriter is never asked and the prompt is the dense one', async () => {
    const dense = await pagePrompt(world({ similarity: understanding }));
    const w = world({ rewrite: true, similarity: understanding });
    expect(await pagePrompt(w)).toBe(dense);
    expect(w.rewrites()).toBe(0);
    expect(w.prompts.some((p) => p[0]!.content.includes(REWRITE_MARK))).toBe(false);
  });

  it('summaries are not rewritten', async () => {
    const w = world({ rewrite: true });
    await pagePrompt(w, 'summarize this page');
    expect(w.rewrites()).toBe(0);
  });

  it('a rewriter that fails leaves the lexical prompt as it was', async () => {
    const plain = await pagePrompt(world({}));
    const prompts: string[] = [];
    const responder = createResponder({
      generate: async function* (messages) {
        prompts.push(messages.find((m) => m.role === 'user')!.content);
        yield 'ok';
      },
      runTool: () => Promise.reject(new Error('no tools here')),
      readPage: async () => ({ ok: true, page: PAGE }),
      systemPrompt: () => 'You are Sidetalk.',
      onCard: () => undefined,
      rewriteQuery: () => Promise.reject(new Error('model gone')),
    });
    expect(await responder.route(turn(QUESTION))!.run(new AbortController().signal)).toMatch(/ok$/);
    expect(prompts.at(-1)).toBe(plain);
  });
});

describe('the in-browser model and the rewrite prompt', () => {
  const collect = async (it: AsyncIterable<string>) => {
    const out: string[] = [];
    for await (const piece of it) out.push(piece);
    return out;
  };
  async function* pieces(): AsyncGenerator<string> {
    yield 'harbour, ';
    yield 'quay';
  }

  it('runs it on WebGPU and passes its pieces on', async () => {
    let runs = 0;
    const got = await collect(localRewriteAnswer('webgpu', () => (runs++, pieces())));
    expect(got).toEqual(['harbour, ', 'quay']);
    expect(runs).toBe(1);
  });

  it('never runs it on WASM or before the backend is known: an empty answer, so the question as asked', async () => {
    for (const backend of ['wasm', null] as const) {
      let runs = 0;
      expect(await collect(localRewriteAnswer(backend, () => (runs++, pieces())))).toEqual([]);
      expect(runs).toBe(0);
    }
  });
});
