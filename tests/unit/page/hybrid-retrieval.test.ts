// Hybrid page retrieval (core/page/fusion.ts, retrieval.ts): dense similarities join BM25 by reciprocal rank fusion;
// with none, retrieval is the lexical one it always was.
import { describe, expect, it } from 'vitest';
import { chunkPage, type Chunk } from '../../../core/page/chunking';
import type { DenseScores } from '../../../core/page/dense';
import { rankChunks } from '../../../core/page/fusion';
import { retrievePassages, withDenseScores } from '../../../core/page/retrieval';

const filler = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `Note ${i + 1} on ${topic} repeats general remarks without specifics.`).join('\n\n');

const PAGE = [
  '# Kettle manual',
  'This kettle boils water.',
  '## Cleaning',
  `Descale the element with vinegar once a month.\n\n${filler('cleaning', 4)}`,
  '## Safety',
  `Never immerse the base in water.\n\n${filler('safety', 4)}`,
  '## Guarantee terms',
  `Coverage expires twenty-four months after the date of purchase.\n\n${filler('terms', 4)}`,
].join('\n');
const { chunks } = chunkPage(PAGE, { chunkTokens: 40 });
const answer = chunks.find((c) => c.text.includes('Coverage expires'))!;
const PARAPHRASE = 'How long is my warranty good for?';

/** A stand-in for the embedding model: high similarity for the chunks named, low for the rest. */
function similar(best: Chunk[], high = 0.8, low = 0.1): DenseScores {
  return new Map(chunks.map((c) => [c.text, best.includes(c) ? high : low]));
}

describe('hybrid retrieval', () => {
  it('without dense scores, a paraphrase finds nothing and the opening is quoted, exactly as lexical retrieval did', () => {
    const r = retrievePassages(chunks, PARAPHRASE, 60);
    expect(r.matched).toBe(false);
    expect(r.chunks[0]!.id).toBe(0);
    expect(r.chunks.map((c) => c.text).join(' ')).not.toContain('Coverage expires');
    expect(rankChunks(chunks, 'descale vinegar').ranked[0]!.text).toContain('Descale');
  });

  it('with dense scores, the paraphrase quotes the section that answers it', () => {
    const r = retrievePassages(chunks, PARAPHRASE, 60, similar([answer]));
    expect(r.matched).toBe(true);
    expect(r.chunks).toContainEqual(answer);
    expect(r.sections).toContain('Guarantee terms');
  });

  it('keeps the token budget and page order', () => {
    const dense = similar([chunks.at(-1)!, answer], 0.9);
    const r = retrievePassages(chunks, `${PARAPHRASE} vinegar`, 90, dense);
    expect(r.chunks.reduce((s, c) => s + c.tokens, 0)).toBeLessThanOrEqual(90);
    expect(r.chunks.map((c) => c.id)).toEqual([...r.chunks.map((c) => c.id)].sort((a, b) => a - b));
    expect(r.chunks).toContainEqual(answer);
  });

  it('fuses by rank: the dense ranking brings in a chunk lexical search never finds, beside the lexical best', () => {
    const descale = chunks.find((c) => c.text.includes('Descale'))!;
    const { ranked } = rankChunks(chunks, 'descale the element', similar([answer]));
    expect(ranked.slice(0, 2)).toEqual(expect.arrayContaining([answer, descale]));
    const lexicalOnly = rankChunks(chunks, 'descale the element', similar([answer]), {
      k: 10,
      lexical: 1,
      dense: 0,
      minSimilarity: 0.35,
    }).ranked;
    expect(lexicalOnly[0]).toBe(descale);
    expect(lexicalOnly).not.toContain(answer);
  });

  it('a question no chunk is similar enough to still counts as not found', () => {
    const r = retrievePassages(chunks, 'What colour is the moon?', 60, similar([], 0.2, 0.1));
    expect(r.matched).toBe(false);
    expect(r.chunks[0]!.id).toBe(0);
  });

  it('dense scores given to withDenseScores reach retrievePassages only while its callback runs', () => {
    const dense = similar([answer]);
    const inside = withDenseScores(dense, () => retrievePassages(chunks, PARAPHRASE, 60));
    expect(inside.chunks).toContainEqual(answer);
    expect(retrievePassages(chunks, PARAPHRASE, 60).chunks).not.toContainEqual(answer);
    expect(() =>
      withDenseScores(dense, () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(retrievePassages(chunks, PARAPHRASE, 60).matched).toBe(false);
  });
});
