// PageEmbeddingIndex: a page's chunks are embedded once per content; later questions embed only themselves.
import { describe, expect, it } from 'vitest';
import { chunkPage } from '../../../core/page/chunking';
import { embeddingText, meanPoolNormalized } from '../../../core/page/dense';
import { contentHash, PageEmbeddingIndex } from '../../../core/page/page-embeddings';
import { pageTunables, setTunable } from '../../../core/tunables';

/** A deterministic stand-in model: a unit vector from letter counts; records every text it was asked to embed. */
function fakeModel() {
  const calls: string[][] = [];
  const embed = async (texts: string[]) => {
    calls.push(texts);
    return texts.map((t) => {
      const v = new Float32Array(26);
      for (const ch of t.toLowerCase()) if (ch >= 'a' && ch <= 'z') v[ch.charCodeAt(0) - 97]! += 1;
      const n = Math.hypot(...v) || 1;
      return v.map((x) => x / n);
    });
  };
  return { calls, embed };
}

const page = (topic: string) =>
  `# ${topic}\n${Array.from({ length: 30 }, (_, i) => `Paragraph ${i} about ${topic} and nothing else.`).join('\n\n')}`;

describe('PageEmbeddingIndex', () => {
  it('embeds each chunk once, with its heading path, and only the question after that', async () => {
    const { calls, embed } = fakeModel();
    const index = new PageEmbeddingIndex(embed);
    const text = page('Tides');
    const { chunks } = chunkPage(text, { chunkTokens: 40 });
    const first = await index.scores(text, chunks, 'when is low tide');
    expect(first.size).toBe(chunks.length);
    const chunkTexts = calls.slice(0, -1).flat();
    expect(chunkTexts).toEqual(chunks.map(embeddingText));
    expect(Math.max(...calls.slice(0, -1).map((c) => c.length))).toBeLessThanOrEqual(pageTunables.embedBatchSize);
    const before = calls.length;
    await index.scores(text, chunks, 'what lives in pools');
    expect(calls.slice(before)).toEqual([['what lives in pools']]);
  });

  it('embeds again when the page text changes, and forgets the oldest pages beyond the limit', async () => {
    const { calls, embed } = fakeModel();
    const index = new PageEmbeddingIndex(embed);
    const kept = pageTunables.embeddedPagesKept;
    setTunable('page.embeddedPagesKept', 2);
    try {
      for (const topic of ['A', 'B', 'C']) {
        const text = page(topic);
        await index.scores(text, chunkPage(text).chunks, 'q');
      }
      expect(index.size).toBe(2);
      const n = calls.length;
      const textA = page('A');
      await index.scores(textA, chunkPage(textA).chunks, 'q');
      expect(calls.length - n).toBeGreaterThan(1); // A was evicted: its chunks are embedded again
    } finally {
      setTunable('page.embeddedPagesKept', kept);
    }
  });

  it('a failed embedding is not cached: the next question tries again', async () => {
    const model = fakeModel();
    let fail = true;
    const index = new PageEmbeddingIndex(async (texts) => {
      if (fail) throw new Error('worker gone');
      return model.embed(texts);
    });
    const text = page('Reefs');
    const { chunks } = chunkPage(text);
    await expect(index.scores(text, chunks, 'q')).rejects.toThrow('worker gone');
    fail = false;
    expect((await index.scores(text, chunks, 'q')).size).toBe(chunks.length);
  });

  it('hashes content, not identity', () => {
    expect(contentHash(page('A'))).toBe(contentHash(page('A')));
    expect(contentHash(page('A'))).not.toBe(contentHash(page('B')));
  });
});

describe('meanPoolNormalized', () => {
  it('averages only unmasked tokens and normalises', () => {
    // batch 2, seq 3, dim 2; the second row's last token is padding, pointing elsewhere, and must be ignored.
    const hidden = [1, 0, 0, 1, 1, 1, 2, 0, 0, 2, 100, 0];
    const [a, b] = meanPoolNormalized(hidden, [2, 3, 2], [1n, 1n, 1n, 1n, 1n, 0n]);
    expect(Array.from(a!).map((x) => +x.toFixed(4))).toEqual([0.7071, 0.7071]);
    expect(Array.from(b!).map((x) => +x.toFixed(4))).toEqual([0.7071, 0.7071]);
    const [zero] = meanPoolNormalized([0, 0], [1, 1, 2], [1]);
    expect(Array.from(zero!)).toEqual([0, 0]);
  });

  it('a page first embedded in part is embedded whole when asked with more of its chunks (the GPU came)', async () => {
    const { calls, embed } = fakeModel();
    const index = new PageEmbeddingIndex(embed);
    const text = page('Harbours');
    const { chunks } = chunkPage(text, { chunkTokens: 40 });
    const part = chunks.slice(0, 3);
    expect((await index.scores(text, part, 'where do boats moor')).size).toBe(part.length);
    const before = calls.length;
    const whole = await index.scores(text, chunks, 'where do boats moor');
    expect(whole.size).toBe(chunks.length);
    expect(calls.length).toBeGreaterThan(before + 1); // the chunks, not only the question
  });
});
