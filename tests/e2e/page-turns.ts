import type { Page } from 'playwright-core';
import type { Reply } from '../../core/protocol';
import { PAGE_OPEN } from '../../core/page/prompt';
import { engineMarks, poll, request, sendFromPage } from './harness';

/**
 * Page questions typed into a side panel, for the page e2e files: `panel` is read at each call (the files open it in
 * `beforeAll`); `deliveredWithinMs` is how long a turn's page task may take to be delivered.
 */
export function pageTurns(panel: () => Page, deliveredWithinMs: number) {
  /** Sends a request and throws its error if it fails. */
  async function must(type: string, target: string, payload: unknown): Promise<void> {
    const r = await sendFromPage<Reply<unknown>>(panel(), request(type, target, payload));
    if (!r.ok) throw new Error(r.error.message);
  }

  /** Says `text` and returns the assistant's lines from this turn once its page task was delivered. */
  async function ask(text: string, until: (lines: string[]) => boolean): Promise<string[]> {
    const p = panel();
    const marksBefore = (await engineMarks(p)).length;
    const before = await p.locator('.line.assistant').count();
    await p.getByTestId('composer').fill(text);
    await p.getByRole('button', { name: 'Send' }).click();
    await poll(
      async () => (await engineMarks(p)).slice(marksBefore).map((m) => m.name),
      (names) => names.includes('background-delivered'),
      deliveredWithinMs,
      250,
    );
    return poll(async () => (await p.locator('.line.assistant').allInnerTexts()).slice(before), until, 30_000);
  }

  /** The page part of the newest prompt that quoted a page, as the model got it. */
  async function lastPagePrompt(): Promise<string> {
    const log = await sendFromPage<Reply<{ prompt: string }[]>>(panel(), request('debug/llm-log', 'offscreen'));
    if (!log.ok) throw new Error(log.error.message);
    const prompt = log.data.map((e) => e.prompt).findLast((p) => p.includes(PAGE_OPEN));
    if (!prompt) throw new Error('no page prompt in the model log');
    return prompt.slice(prompt.lastIndexOf(PAGE_OPEN));
  }

  return { must, ask, lastPagePrompt };
}
