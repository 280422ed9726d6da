/**
 * Writes bench/retrieval/wordnet-replies.json: the second scripted stand-in for the question rewrite (rewrite.ts),
 * NOT the real LLM. For each question of the retrieval set, from the question's own words only (never the page or
 * the answer sentences): every search word (stop words dropped) is reduced to its WordNet base form (the exception
 * lists, then WordNet's suffix rules), and the other lemmas of its two most frequent senses in each part of speech
 * are its synonyms; first synonyms of every word, then second ones, and so on, at most 8, as one comma-separated line.
 * WordNet 3.0 from Debian's wordnet-base package (Princeton's WordNet 3.0 license; its notice is in the output):
 *   (cd /tmp && apt-get download wordnet-base && dpkg-deb -x wordnet-base_*.deb wn)
 *   npx jiti bench/retrieval/make-wordnet-replies.ts /tmp/wn/usr/share/wordnet
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { searchTerms } from '../../core/page/bm25';
import { RETRIEVAL_PAGES } from '../../tests/fixtures/retrieval/pages';

const POS = ['noun', 'verb', 'adj', 'adv'] as const;
type Pos = (typeof POS)[number];
const RULES: Record<Pos, [string, string][]> = {
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
/** Senses read per part of speech (WordNet lists a lemma's senses most frequent first). */
const SENSES = 2;
const MAX_KEYWORDS = 8;

const dir = process.argv[2];
if (!dir) throw new Error('usage: make-wordnet-replies.ts <wordnet dict dir>');

const index = new Map<Pos, Map<string, number[]>>();
const data = new Map<Pos, Buffer>();
const exceptions = new Map<Pos, Map<string, string[]>>();
for (const pos of POS) {
  const entries = new Map<string, number[]>();
  for (const line of readFileSync(join(dir, `index.${pos}`), 'latin1').split('\n')) {
    if (!line || line.startsWith(' ')) continue;
    const f = line.trim().split(' ');
    const synsets = Number(f[2]);
    entries.set(f[0]!, f.slice(f.length - synsets).map(Number));
  }
  index.set(pos, entries);
  data.set(pos, readFileSync(join(dir, `data.${pos}`)));
  const exc = new Map<string, string[]>();
  for (const line of readFileSync(join(dir, `${pos}.exc`), 'latin1').split('\n')) {
    const [form, ...bases] = line.trim().split(' ');
    if (form) exc.set(form, bases);
  }
  exceptions.set(pos, exc);
}

/** The word's base forms found in WordNet for one part of speech. */
function baseForms(word: string, pos: Pos): string[] {
  const known = index.get(pos)!;
  const out = new Set<string>();
  for (const b of exceptions.get(pos)!.get(word) ?? []) if (known.has(b)) out.add(b);
  if (known.has(word)) out.add(word);
  for (const [suffix, ending] of RULES[pos])
    if (word.endsWith(suffix) && known.has(word.slice(0, -suffix.length) + ending))
      out.add(word.slice(0, -suffix.length) + ending);
  return [...out];
}

/** The lemmas of the synset at `offset` in data.<pos>. */
function lemmas(pos: Pos, offset: number): string[] {
  const buf = data.get(pos)!;
  const end = buf.indexOf(10, offset);
  const f = buf.toString('latin1', offset, end).split(' ');
  const count = parseInt(f[3]!, 16);
  return Array.from({ length: count }, (_, i) =>
    f[4 + i * 2]!.replace(/\(.*\)$/, '')
      .replace(/_/g, ' ')
      .toLowerCase(),
  );
}

function synonyms(word: string): string[] {
  const out: string[] = [];
  for (const pos of POS)
    for (const base of baseForms(word, pos))
      for (const offset of index.get(pos)!.get(base)!.slice(0, SENSES))
        for (const l of lemmas(pos, offset)) if (l !== base && !out.includes(l)) out.push(l);
  return out;
}

export function wordnetReply(question: string): string {
  const asked = question.toLowerCase().match(/\p{L}+/gu) ?? [];
  const words = [...new Set(asked.filter((w) => searchTerms(w).length))];
  const used = new Set(searchTerms(question));
  const lists = words.map((w) => synonyms(w));
  const reply: string[] = [];
  for (let round = 0; reply.length < MAX_KEYWORDS && lists.some((l) => l.length > round); round++)
    for (const list of lists) {
      const s = list[round];
      if (!s || reply.length >= MAX_KEYWORDS || s.split(' ').length > 3) continue;
      const stems = searchTerms(s);
      if (!stems.length || stems.every((t) => used.has(t))) continue;
      stems.forEach((t) => used.add(t));
      reply.push(s);
    }
  return reply.join(', ');
}

const replies = Object.fromEntries(
  RETRIEVAL_PAGES.flatMap((p) => p.questions.map((q) => [q.question, wordnetReply(q.question)])),
);
writeFileSync(
  'bench/retrieval/wordnet-replies.json',
  `${JSON.stringify(
    {
      about:
        'Scripted stand-in replies for the question rewrite, NOT the real LLM: WordNet synonyms of the question words (bench/retrieval/make-wordnet-replies.ts).',
      notice: 'WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. Used under the WordNet 3.0 license.',
      replies,
    },
    null,
    2,
  )}\n`,
);
