// The responder asks the page's standing index (core/page/page-index.ts) for a page question: the index it gets back
// is what the prompt quotes from, and a partial one makes the answer start with how much was read.
import { describe, expect, it } from 'vitest';
import { createResponder, type LlmMessage } from '../../../core/conversation/responder';
import type { UserTurn } from '../../../core/engine/types';
import { PageIndex } from '../../../core/page/page-index';
import type { PageExtraction } from '../../../core/page/types';
import { wholePage } from '../../fixtures/retrieval/whole-page';

const LONG = wholePage(20_000);
const PAGE: PageExtraction = {
  title: 'Harbour records',
  url: 'https://example.org/harbour',
  lang: 'en',
  selection: '',
  text: LONG.text,
  kind: 'article',
  truncated: false,
};
const turn: UserTurn = {
  turnId: 't',
  text: `According to this page, ${LONG.late.question.toLowerCase()}`,
  history: [],
  memory: [],
  localTime: '',
  backgroundBusy: false,
};

function world(index: PageIndex) {
  const prompts: LlmMessage[][] = [];
  const asked: string[] = [];
  const responder = createResponder({
    async *generate(messages) {
      prompts.push(messages);
      yield 'Here is what I found.';
    },
    runTool: () => Promise.reject(new Error('no tool may run')),
    readPage: async () => ({ ok: true, page: PAGE }),
    systemPrompt: () => 'You are Sidetalk.',
    onCard: () => undefined,
    pageIndex: async (text) => {
      asked.push(text);
      return index;
    },
  });
  return { responder, prompts, asked };
}

describe('page questions use the standing index', () => {
  it('a complete index: the fact in the last 5 % is quoted, no notice', async () => {
    const index = new PageIndex(LONG.text, { now: () => 0, sleep: () => Promise.resolve() });
    await index.ready;
    const { responder, prompts, asked } = world(index);
    const answer = await responder.route(turn)!.run(new AbortController().signal);
    expect(asked).toEqual([LONG.text]);
    expect(answer).toBe('Here is what I found.');
    expect(prompts[0]!.at(-1)!.content).toContain(LONG.late.sentence);
  });

  it('an index still being built: the answer says how much was read', async () => {
    let t = 0;
    const index = new PageIndex(LONG.text, { now: () => (t += 5), sleep: () => new Promise(() => undefined) });
    const { responder, prompts } = world(index);
    const answer = await responder.route(turn)!.run(new AbortController().signal);
    expect(answer).toMatch(/^I've read about \d+ % of this long page so far.* Here is what I found\.$/);
    expect(prompts[0]!.at(-1)!.content).not.toContain(LONG.late.sentence);
  });
});
