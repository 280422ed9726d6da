// Answers that show where (docs/tools.md): a page answer hands the panel the sections it was drawn from, each with
// the first words of its quoted text to find it by; an answer about a selection does not. A PDF on this computer, which
// Chrome lets no extension read, gets the card that lets the user open the file (red when any refusal shows it, or none).
import { describe, expect, it } from 'vitest';
import { createResponder } from '../../../core/conversation/responder';
import type { UserTurn } from '../../../core/engine/types';
import type { PageExtraction } from '../../../core/page/types';

const PAGE: PageExtraction = {
  title: 'Harbour guide',
  url: 'https://example.org/harbour',
  lang: 'en',
  selection: '',
  text: '# Harbour guide\n\nWelcome.\n\n## Tides\n\nSpring tides reach the sea wall in March.\n\n## Boats\n\nBoats moor on the east quay.',
  kind: 'article',
  truncated: false,
};

const turn = (text: string): UserTurn => ({ turnId: 't', text, history: [], memory: [], localTime: '', backgroundBusy: false });

function world(page: PageExtraction) {
  const cards: unknown[] = [];
  const responder = createResponder({
    async *generate() {
      yield 'In March.';
    },
    runTool: () => Promise.reject(new Error('no tool may run')),
    readPage: async () => ({ ok: true, page }),
    systemPrompt: () => 'You are Sidetalk.',
    onCard: (card) => cards.push(card),
  });
  return { responder, cards };
}

describe('page answers show where they came from', () => {
  it('a page answer ends with a card of its sources', async () => {
    const { responder, cards } = world(PAGE);
    const task = responder.route(turn('according to this page, when do spring tides reach the sea wall?'))!;
    expect(await task.run(new AbortController().signal)).toBe('In March.');
    const card = cards.at(-1) as { kind: string; url: string; sources: { heading: string; snippet: string }[] };
    expect(card.kind).toBe('page-sources');
    expect(card.url).toBe(PAGE.url);
    expect(card.sources).toContainEqual({
      heading: 'Tides',
      path: ['Harbour guide', 'Tides'],
      snippet: 'Spring tides reach the sea wall in March.',
    });
  });

  it('an answer about the selection shows no sources', async () => {
    const { responder, cards } = world({
      ...PAGE,
      kind: 'selection',
      selection: 'Boats moor on the east quay.',
      text: 'Boats moor on the east quay.',
    });
    await responder.route(turn('according to this page, where do boats moor?'))!.run(new AbortController().signal);
    expect(cards.filter((c) => c !== null)).toEqual([]);
  });

  it('a PDF on this computer that Chrome will not hand over: the refusal, and the card to open the file and ask again', async () => {
    const cards: unknown[] = [];
    const refused = (reason?: string) =>
      createResponder({
        async *generate() {
          yield 'never';
        },
        runTool: () => Promise.reject(new Error('no tool may run')),
        readPage: async () => ({ ok: false, message: 'Refused.', ...(reason ? { reason } : {}) }),
        systemPrompt: () => 'You are Sidetalk.',
        onCard: (card) => cards.push(card),
      });
    const question = 'according to this pdf, who recalibrated the gauge?';
    expect(await refused('pdf_local').route(turn(question))!.run(new AbortController().signal)).toBe('Refused.');
    expect(cards).toEqual([{ kind: 'pdf-pick', question }]);
    await refused('pdf').route(turn(question))!.run(new AbortController().signal);
    await refused().route(turn(question))!.run(new AbortController().signal);
    expect(cards).toHaveLength(1);
  });
});
