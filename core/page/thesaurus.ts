// A built-in thesaurus for page questions on machines where no model rewrites them (docs/tools.md, "The built-in
// thesaurus"): synonyms of the question's own words from WordNet 3.0, shipped as a table (public/thesaurus/, made by
// scripts/make-thesaurus.ts). Each word is reduced to its WordNet base forms (the exception lists, then WordNet's
// suffix rules) in every part of speech, and the other lemmas of the base form's most frequent senses are its
// synonyms; the keywords are the words' first synonyms, then their second ones, and so on, each adding a new search
// stem. What it gives goes through the same merge as the LLM's keywords (query-rewrite.ts). Pure.
import { searchTerms } from './bm25';

export const PARTS_OF_SPEECH = ['noun', 'verb', 'adj', 'adv'] as const;
export type PartOfSpeech = (typeof PARTS_OF_SPEECH)[number];

/** WordNet's detachment rules (morphy): a suffix and what replaces it, per part of speech. */
const SUFFIX_RULES: Record<PartOfSpeech, readonly (readonly [string, string])[]> = {
  noun: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  verb: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  adj: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
  adv: [],
};

/** A keyword of more words than this is left out (the rewrite's own limit is the same). */
const MAX_KEYWORD_WORDS = 3;

export interface ThesaurusTable {
  /** Per part of speech: a base form → its synonyms, most frequent sense first. */
  synonyms: Record<PartOfSpeech, ReadonlyMap<string, readonly string[]>>;
  /** Per part of speech: an irregular form → its base forms ("geese" → "goose"). */
  exceptions: Record<PartOfSpeech, ReadonlyMap<string, readonly string[]>>;
}

/**
 * The table's text form, one entry a line, tab-separated: `s <pos> <base> <synonym>|<synonym>…` or
 * `x <pos> <form> <base>|<base>…`; lines starting with `#` are notes. Unknown or broken lines are skipped.
 */
export function parseThesaurus(text: string): ThesaurusTable {
  const empty = () => Object.fromEntries(PARTS_OF_SPEECH.map((p) => [p, new Map<string, string[]>()]));
  const synonyms = empty() as Record<PartOfSpeech, Map<string, string[]>>;
  const exceptions = empty() as Record<PartOfSpeech, Map<string, string[]>>;
  for (const line of text.split('\n')) {
    const [kind, pos, word, list] = line.split('\t');
    if (!word || !list || !(PARTS_OF_SPEECH as readonly string[]).includes(pos ?? '')) continue;
    const into = kind === 's' ? synonyms : kind === 'x' ? exceptions : null;
    into?.[pos as PartOfSpeech].set(word, list.split('|').filter(Boolean));
  }
  return { synonyms, exceptions };
}

export class Thesaurus {
  constructor(private readonly table: ThesaurusTable) {}

  /** The word's base forms that have synonyms, for one part of speech. */
  private baseForms(word: string, pos: PartOfSpeech): string[] {
    const known = this.table.synonyms[pos];
    const out = new Set<string>();
    for (const b of this.table.exceptions[pos].get(word) ?? []) if (known.has(b)) out.add(b);
    if (known.has(word)) out.add(word);
    for (const [suffix, ending] of SUFFIX_RULES[pos]) {
      const base = word.slice(0, -suffix.length) + ending;
      if (word.endsWith(suffix) && known.has(base)) out.add(base);
    }
    return [...out];
  }

  /** A word's synonyms over every part of speech, most frequent sense first, without the word's own base forms. */
  synonyms(word: string): string[] {
    const out: string[] = [];
    for (const pos of PARTS_OF_SPEECH)
      for (const base of this.baseForms(word.toLowerCase(), pos))
        for (const s of this.table.synonyms[pos].get(base) ?? []) if (s !== base && !out.includes(s)) out.push(s);
    return out;
  }

  /**
   * At most `max` keywords for a question: its words' first synonyms, then their second ones, and so on, each one
   * bringing a search stem the question and the earlier keywords do not have.
   */
  keywords(question: string, max: number): string[] {
    const asked = question.toLowerCase().match(/\p{L}+/gu) ?? [];
    const words = [...new Set(asked.filter((w) => searchTerms(w).length))];
    const used = new Set(searchTerms(question));
    const lists = words.map((w) => this.synonyms(w));
    const out: string[] = [];
    for (let round = 0; out.length < max && lists.some((l) => l.length > round); round++)
      for (const list of lists) {
        const s = list[round];
        if (!s || out.length >= max || s.split(' ').length > MAX_KEYWORD_WORDS) continue;
        const stems = searchTerms(s);
        if (!stems.length || stems.every((t) => used.has(t))) continue;
        stems.forEach((t) => used.add(t));
        out.push(s);
      }
    return out;
  }
}
