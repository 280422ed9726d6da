import { describe, expect, it } from 'vitest';
import { chunkPage, splitSections } from '../../../core/page/chunking';
import { retrievePassages, selectForSummary } from '../../../core/page/retrieval';
import { estimateTokens } from '../../../core/page/tokens';

const filler = (topic: string, n: number): string =>
  Array.from(
    { length: n },
    (_, i) => `Paragraph ${i + 1} about ${topic} goes on with general remarks that are not specific.`,
  ).join('\n\n');

const PAGE = [
  '# Acme Router X2',
  'The Acme Router X2 is a home wifi router.',
  '## Installation',
  `Plug the router into the modem with the yellow cable, then hold the reset button for ten seconds.\n\n${filler('setup', 6)}`,
  '## Pricing',
  `The X2 costs 129 dollars, and a three year warranty adds 20 dollars.\n\n${filler('money', 6)}`,
  '### Discounts',
  'Students get a fifteen percent discount.',
  '## Troubleshooting',
  `If the light blinks red, the firmware update failed.\n\n${filler('problems', 6)}`,
].join('\n');

describe('chunking', () => {
  it('splits by heading and keeps heading paths', () => {
    const s = splitSections(PAGE);
    expect(s.map((x) => x.heading)).toEqual(['Acme Router X2', 'Installation', 'Pricing', 'Discounts', 'Troubleshooting']);
    expect(s[3]!.path).toEqual(['Acme Router X2', 'Pricing', 'Discounts']);
  });

  it('keeps chunks within the token target and covers all text', () => {
    const c = chunkPage(PAGE, { chunkTokens: 60 });
    expect(c.truncated).toBe(false);
    expect(c.chunks.every((x) => x.tokens <= 60)).toBe(true);
    expect(c.chunks.length).toBeGreaterThan(5);
    expect(c.chunks.map((x) => x.text).join(' ')).toContain('hold the reset button');
  });

  it('splits one enormous paragraph and caps oversized pages', () => {
    const long = `# Big\n${'word '.repeat(5_000)}`;
    const c = chunkPage(long, { chunkTokens: 100, maxIndexedTokens: 1_000 });
    expect(c.truncated).toBe(true);
    expect(c.totalTokens).toBeLessThanOrEqual(1_000);
    expect(c.chunks.every((x) => x.tokens <= 100)).toBe(true);
  });

  it('estimates tokens for Latin and CJK text', () => {
    expect(estimateTokens('abcdefgh')).toBe(2);
    expect(estimateTokens('東京都')).toBe(3);
  });
});

describe('retrieval', () => {
  const { chunks } = chunkPage(PAGE, { chunkTokens: 60 });

  it('picks the section that answers the question', () => {
    const r = retrievePassages(chunks, 'How much does it cost? Is there a warranty?', 40);
    expect(r.matched).toBe(true);
    expect(r.sections[0]).toBe('Pricing');
    expect(r.chunks[0]!.text).toContain('129 dollars');
  });

  it('finds a section by its heading when the body does not repeat the word', () => {
    const r = retrievePassages(chunks, 'what about discounts', 30);
    expect(r.chunks.map((c) => c.text)).toContain('Students get a fifteen percent discount.');
  });

  it('stays within the budget and returns chunks in page order', () => {
    const r = retrievePassages(chunks, 'reset button red light firmware', 120);
    expect(r.chunks.reduce((a, c) => a + c.tokens, 0)).toBeLessThanOrEqual(120);
    expect(r.chunks.map((c) => c.id)).toEqual([...r.chunks.map((c) => c.id)].sort((a, b) => a - b));
    expect(r.sections).toEqual(expect.arrayContaining(['Installation', 'Troubleshooting']));
  });

  it('falls back to the opening when nothing matches', () => {
    const r = retrievePassages(chunks, 'zebra migration', 60);
    expect(r.matched).toBe(false);
    expect(r.chunks[0]!.id).toBe(0);
  });

  it('summary takes a spread across all sections before second chunks', () => {
    const r = selectForSummary(chunks, 200);
    expect(r.sections).toEqual(['Acme Router X2', 'Installation', 'Pricing', 'Discounts', 'Troubleshooting']);
    expect(r.partial).toBe(true);
    expect(r.chunks.reduce((a, c) => a + c.tokens, 0)).toBeLessThanOrEqual(200);
  });
});
