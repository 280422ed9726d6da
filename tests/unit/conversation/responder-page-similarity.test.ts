/**
 * Page questions with and without the embedding model (core/conversation/responder.ts): the responder asks for dense
 * similarities and the prompt's quoted sections follow them; with none (model not downloaded, too slow, failed) the
 * prompt is exactly the lexical one.
 */
import { describe, expect, it } from 'vitest';
import { createResponder, type LlmMessage, type ResponderDeps } from '../../../core/conversation/responder';
import type { UserTurn } from '../../../core/engine/types';
import { KETTLE_ANSWER, KETTLE_PAGE, KETTLE_QUESTION, kettleDenseScores } from '../../fixtures/retrieval/kettle-page';

const ANSWER = KETTLE_ANSWER;
const PAGE = KETTLE_PAGE;
const QUESTION = KETTLE_QUESTION;

function world(pageSimilarity?: ResponderDeps['pageSimilarity']) {
  const prompts: LlmMessage[][] = [];
  const asked: string[] = [];
  const deps: ResponderDeps = {
    async *generate(messages) {
      prompts.push(messages);
      yield 'ok';
    },
    runTool: () => Promise.reject(new Error('no tools here')),
    readPage: async () => ({ ok: true, page: PAGE }),
    systemPrompt: () => 'You are Sidetalk.',
    onCard: () => undefined,
    ...(pageSimilarity
      ? {
          pageSimilarity: (page, question, signal) => {
            asked.push(question);
            return pageSimilarity(page, question, signal);
          },
        }
      : {}),
  };
  return { responder: createResponder(deps), prompts, asked };
}

const turn = (text: string): UserTurn => ({ turnId: 't1', text, history: [], memory: [], localTime: '', backgroundBusy: false });

async function pagePrompt(w: ReturnType<typeof world>, text = QUESTION): Promise<string> {
  await w.responder.route(turn(text))!.run(new AbortController().signal);
  return w.prompts.at(-1)!.find((m) => m.role === 'user')!.content;
}

/** The similarities a model that understands the question would give: the guarantee chunk first. */
const understanding = kettleDenseScores;

describe('responder: page questions with sentence embeddings', () => {
  it('quotes the section the embeddings point to', async () => {
    const w = world(understanding);
    const prompt = await pagePrompt(w);
    expect(w.asked).toHaveLength(1);
    expect(w.asked[0]).toMatch(/my warranty good for/);
    expect(prompt).toContain(ANSWER);
    expect(prompt).toContain('"Guarantee terms"');
  });

  it('without the model (null), or when it fails, the prompt is the lexical one, unchanged', async () => {
    const lexical = await pagePrompt(world());
    expect(lexical).not.toContain(ANSWER);
    expect(await pagePrompt(world(async () => null))).toBe(lexical);
    expect(await pagePrompt(world(() => Promise.reject(new Error('worker died'))))).toBe(lexical);
  });

  it('summaries do not ask for embeddings', async () => {
    const w = world(understanding);
    await pagePrompt(w, 'summarize this page');
    expect(w.asked).toEqual([]);
  });
});
