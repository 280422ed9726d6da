// The built-in thesaurus (docs/tools.md, "The built-in thesaurus"): the table as shipped, WordNet's base forms, the
// keyword rounds, and the rewrite's use of it when the LLM gives no keywords.
// Breaks that turned these red: the suffix rules skipped ("warranties" finds nothing), the exception lists ignored
// ("bought" finds nothing), one word's synonyms exhausted before the next word's first, a keyword kept that brings no
// new stem, the thesaurus asked even when the LLM gave keywords, a thesaurus failure failing the question.
import { describe, expect, it } from 'vitest';
import { searchTerms } from '../../../core/page/bm25';
import { rewriteQuery } from '../../../core/page/query-rewrite';
import { parseThesaurus, Thesaurus } from '../../../core/page/thesaurus';
import { readThesaurus } from '../../fixtures/thesaurus';

const noWait = { now: () => 0, sleep: () => new Promise<void>(() => undefined) };
const answer = (text: string) =>
  async function* () {
    if (text) yield text;
  };

describe('the built-in thesaurus', () => {
  const shipped = readThesaurus();

  it('the shipped table: base forms by the suffix rules and the exception lists, most frequent sense first', () => {
    expect(shipped.synonyms('guarantee')).toContain('warranty');
    expect(shipped.synonyms('guarantees')).toContain('warranty');
    expect(shipped.synonyms('cars').slice(0, 2)).toEqual(['auto', 'automobile']);
    expect(shipped.synonyms('bought')).toContain('purchase');
    expect(shipped.synonyms('geese')).toEqual(shipped.synonyms('goose'));
    expect(shipped.synonyms('qwzx')).toEqual([]);
  });

  it("keywords: every word's first synonym, then the second ones; each brings a new stem; at most max", () => {
    const table = parseThesaurus(
      [
        '# a note',
        's\tnoun\tguarantee\twarranty|warrantee|guaranty',
        's\tnoun\tkid\tchild|youngster',
        's\tverb\tkid\tjoke',
        'x\tnoun\tkiddies\tkid',
        'broken line',
        's\tpronoun\tx\ty',
      ].join('\n'),
    );
    const t = new Thesaurus(table);
    expect(t.keywords('guarantee for kids', 8)).toEqual(['warranty', 'child', 'warrantee', 'youngster', 'guaranty', 'joke']);
    expect(t.keywords('guarantee for kids', 3)).toEqual(['warranty', 'child', 'warrantee']);
    // The exception is a noun's: the verb "kid" (joke) is not reached from "kiddies".
    expect(t.keywords('kiddies', 8)).toEqual(['child', 'youngster']);
    // "Guaranty" adds a stem of its own; a synonym whose stems the question already has is skipped.
    const same = new Thesaurus(parseThesaurus('s\tnoun\tdoor\tdoors|gate'));
    expect(same.keywords('door', 8)).toEqual(['gate']);
    expect(searchTerms('doors')).toEqual(searchTerms('door'));
  });

  it('the rewrite takes the thesaurus when the LLM gives no keywords, never instead of them, and never fails on it', async () => {
    const signal = new AbortController().signal;
    const thesaurus = async (q: string) => shipped.keywords(q, 8);
    const question = 'How long is the guarantee valid for?';
    const cpu = await rewriteQuery(question, signal, { generate: answer(''), clock: noWait, thesaurus });
    expect(cpu).toBeInstanceOf(Map);
    expect((cpu as Map<string, number>).get(searchTerms('warranty')[0]!)).toBe(0.5);
    const sentence = await rewriteQuery(question, signal, {
      generate: answer('The guarantee lasts as long as the page says.'),
      clock: noWait,
      thesaurus,
    });
    expect((sentence as Map<string, number>).has(searchTerms('warranty')[0]!)).toBe(true);
    let asked = 0;
    const model = await rewriteQuery(question, signal, {
      generate: answer('cover, protection'),
      clock: noWait,
      thesaurus: async (q) => (asked++, thesaurus(q)),
    });
    expect(asked).toBe(0);
    expect([...(model as Map<string, number>).keys()]).toContain(searchTerms('protection')[0]);
    const broken = await rewriteQuery(question, signal, {
      generate: answer(''),
      clock: noWait,
      thesaurus: () => Promise.reject(new Error('no table')),
    });
    expect(broken).toBe(question);
    const stopped = new AbortController();
    stopped.abort();
    expect(await rewriteQuery(question, stopped.signal, { generate: answer(''), clock: noWait, thesaurus })).toBe(question);
  });
});
