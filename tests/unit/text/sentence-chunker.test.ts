import { describe, expect, it } from 'vitest';
import { SentenceChunker } from '../../../core/text/sentence-chunker';

function streamed(text: string, step = 3): string[] {
  const c = new SentenceChunker();
  const out: string[] = [];
  for (let i = 0; i < text.length; i += step) out.push(...c.push(text.slice(i, i + step)));
  return [...out, ...c.flush()];
}

describe('SentenceChunker', () => {
  it('splits at real sentence ends only, not abbreviations, decimals or initials', () => {
    const text = "Dr. Smith measured 3.5 kg, e.g. the heavy one. It was J. R. R. Tolkien's, i.e. his. Really? Yes!";
    expect(streamed(text)).toEqual([
      'Dr. Smith measured 3.5 kg,', // first chunk may go at a clause break
      'e.g. the heavy one.',
      "It was J. R. R. Tolkien's, i.e. his.",
      'Really?',
      'Yes!',
    ]);
  });

  it('lets the first chunk go at a clause break once it is long enough, later chunks wait for sentence ends', () => {
    const text = 'Well, the forecast for tomorrow looks bright, with sunshine all day, and a light breeze. Later, rain.';
    expect(streamed(text)).toEqual([
      'Well, the forecast for tomorrow looks bright,',
      'with sunshine all day, and a light breeze.',
      'Later, rain.',
    ]);
  });

  it('caps a run-on without punctuation at a word boundary', () => {
    const words = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
    const chunks = new SentenceChunker({ maxChunkChars: 100 }).push(words);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(100);
      expect(words.includes(chunk)).toBe(true);
      expect(chunk).toMatch(/^word\d+( word\d+)*$/);
    }
  });

  it('does not split "in 1999." style year ends from list numbers', () => {
    expect(streamed('It opened in 1999. Then it closed.')).toEqual(['It opened in 1999.', 'Then it closed.']);
    expect(streamed('Ask about No. 5 please. Thanks.')).toEqual(['Ask about No. 5 please.', 'Thanks.']);
  });
});
