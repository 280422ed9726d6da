// The published retrieval set (tests/fixtures/retrieval) is what its README says: long pages, each fact stated once,
// and paraphrases that a lexical search cannot match on the fact's own words or heading.
import { describe, expect, it } from 'vitest';
import { searchTerms } from '../../../core/page/bm25';
import { splitSections } from '../../../core/page/chunking';
import { PAGE_FACTS } from '../../fixtures/retrieval/facts';
import { RETRIEVAL_PAGES } from '../../fixtures/retrieval/pages';

describe('retrieval set', () => {
  it.each(RETRIEVAL_PAGES.map((p) => [p.title, p] as const))('%s: over 10,000 words in tens of sections', (_, page) => {
    expect(page.text.split(/\s+/).length).toBeGreaterThan(10_000);
    expect(splitSections(page.text).length).toBeGreaterThanOrEqual(30);
  });

  it('states every answer exactly once on its page', () => {
    for (const page of RETRIEVAL_PAGES)
      for (const q of page.questions)
        for (const a of q.answers) expect(page.text.split(a).length - 1, `${page.title}: ${a}`).toBe(1);
  });

  it('asks every fact in its own words and as a paraphrase, plus five two-section questions per page', () => {
    for (const page of RETRIEVAL_PAGES) {
      const count = (kind: string) => page.questions.filter((q) => q.kind === kind).length;
      expect([count('words'), count('paraphrase'), count('two-sections')]).toEqual([12, 12, 5]);
    }
  });

  it('paraphrases share no search term with the fact sentence or its heading', () => {
    for (const page of PAGE_FACTS) {
      for (const f of page.facts) {
        const answerTerms = new Set(searchTerms(`${f.heading} ${f.sentence}`));
        const shared = searchTerms(f.paraphrase).filter((t) => answerTerms.has(t));
        expect(shared, `"${f.paraphrase}" vs "${f.sentence}"`).toEqual([]);
      }
    }
  });

  it('questions in the page’s words do share terms with their fact', () => {
    for (const page of PAGE_FACTS) {
      for (const f of page.facts) {
        const answerTerms = new Set(searchTerms(f.sentence));
        expect(searchTerms(f.words).filter((t) => answerTerms.has(t)).length, f.words).toBeGreaterThanOrEqual(2);
      }
    }
  });
});
