// PageSimilarity (the offscreen document's dense half of page questions): a question waits at most page.denseWaitMs
// for the page's embeddings, then is answered lexically (null) while the index finishes for the next question.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PageExtraction } from '../../../core/page/types';
import { resetTunables, setTunable } from '../../../core/tunables';
import { PageSimilarity } from '../../../entrypoints/offscreen/page-similarity';
import { EMBED_BUNDLE } from '../../../models/registry';

const PAGE: PageExtraction = {
  title: 'Guide',
  url: 'https://example.test/guide',
  lang: 'en',
  selection: '',
  text: `# Guide\n\n## Warranty\n\nCoverage expires after two years.\n\n## Setup\n\nPlug the router in.`,
  kind: 'article',
  truncated: false,
};

/** A model whose answers arrive `delayMs` after each call (fake clock); unit vectors from the text's length. */
function slowModel(initialDelayMs: number) {
  let calls = 0;
  let delayMs = initialDelayMs;
  const embed = (_host: string, texts: string[]) =>
    new Promise<Float32Array[]>((resolve) => {
      calls++;
      setTimeout(() => resolve(texts.map((t) => Float32Array.of(Math.cos(t.length), Math.sin(t.length)))), delayMs);
    });
  return { embed, calls: () => calls, setDelay: (ms: number) => (delayMs = ms) };
}

function similarity(delayMs: number, downloaded = true) {
  const model = slowModel(delayMs);
  const asked: string[][] = [];
  const sim = new PageSimilarity({
    embed: model.embed,
    modelsReady: async (ids) => {
      asked.push(ids);
      return downloaded;
    },
    baseUrl: () => undefined,
  });
  return { sim, model, asked };
}

afterEach(() => {
  vi.useRealTimers();
  resetTunables('page');
});

describe('PageSimilarity', () => {
  it('gives the scores when the model answers within page.denseWaitMs', async () => {
    vi.useFakeTimers();
    setTunable('page.denseWaitMs', 1_000);
    const { sim, asked } = similarity(300);
    const out = sim.scores(PAGE, 'how long is the guarantee', new AbortController().signal);
    await vi.advanceTimersByTimeAsync(999);
    const scores = await out;
    expect(asked).toEqual([[EMBED_BUNDLE.id]]);
    expect(scores).not.toBeNull();
    expect(scores!.size).toBeGreaterThan(0);
  });

  it('answers null (lexical) once page.denseWaitMs passes, and the finished index serves the next question', async () => {
    vi.useFakeTimers();
    setTunable('page.denseWaitMs', 1_000);
    const { sim, model } = similarity(5_000);
    const late = sim.scores(PAGE, 'how long is the guarantee', new AbortController().signal);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await late).toBeNull();
    await vi.advanceTimersByTimeAsync(10_000); // the page's chunks and the first question finish in the background
    const chunkCalls = model.calls();
    model.setDelay(300);
    const next = sim.scores(PAGE, 'what is in the box', new AbortController().signal);
    await vi.advanceTimersByTimeAsync(999); // only the question is embedded now
    expect(await next).not.toBeNull();
    expect(model.calls()).toBe(chunkCalls + 1);
  });

  it('a longer page.denseWaitMs waits for a slow model', async () => {
    vi.useFakeTimers();
    setTunable('page.denseWaitMs', 120_000);
    const { sim } = similarity(5_000);
    const out = sim.scores(PAGE, 'how long is the guarantee', new AbortController().signal);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(await out).not.toBeNull();
  });

  it('answers null at once when the turn is aborted, and without asking the model when it is not downloaded', async () => {
    vi.useFakeTimers();
    const { sim } = similarity(5_000);
    const abort = new AbortController();
    const out = sim.scores(PAGE, 'how long is the guarantee', abort.signal);
    await vi.advanceTimersByTimeAsync(10);
    abort.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(await out).toBeNull();
    const absent = similarity(0, false);
    expect(await absent.sim.scores(PAGE, 'anything', new AbortController().signal)).toBeNull();
    expect(absent.model.calls()).toBe(0);
  });
});
