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

function similarity(delayMs: number, downloaded = true, backend: 'webgpu' | 'wasm' | null = 'wasm') {
  const model = slowModel(delayMs);
  const asked: string[][] = [];
  const embedded: string[] = [];
  const sim = new PageSimilarity({
    embed: (host, texts) => {
      embedded.push(...texts);
      return model.embed(host, texts);
    },
    modelsReady: async (ids) => {
      asked.push(ids);
      return downloaded;
    },
    baseUrl: () => undefined,
    backend: () => backend,
  });
  return { sim, model, asked, embedded };
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

  it('embeds the whole of a long page where the models run on WebGPU, and only its beginning on the CPU', async () => {
    setTunable('page.denseWaitMs', 60_000);
    setTunable('page.denseMaxIndexedTokens', 1_000);
    setTunable('page.denseMaxIndexedTokensGpu', 20_000);
    const paragraphs = Array.from(
      { length: 60 },
      (_, i) => `## Part ${i}\n\n${`Sentence ${i} about the harbour and its boats. `.repeat(25)}`,
    );
    const long: PageExtraction = { ...PAGE, text: `# Long\n\n${paragraphs.join('\n\n')}` };
    const covers = async (backend: 'webgpu' | 'wasm' | null) => {
      const { sim, embedded } = similarity(0, true, backend);
      expect(await sim.scores(long, 'where are the boats', new AbortController().signal)).not.toBeNull();
      return embedded.some((t) => t.includes('Sentence 59 '));
    };
    expect(await covers('webgpu')).toBe(true);
    expect(await covers('wasm')).toBe(false);
    expect(await covers(null)).toBe(false);
  });
});
