/**
 * Writes the built-in thesaurus (core/page/thesaurus.ts; docs/tools.md, "The built-in thesaurus") from WordNet 3.0 as
 * Debian's wordnet-base package has it (Princeton's WordNet 3.0 license; its text goes beside the table):
 *   (cd /tmp && apt-get download wordnet-base && dpkg-deb -x wordnet-base_*.deb wn)
 *   npx jiti scripts/make-thesaurus.ts /tmp/wn/usr/share/wordnet /tmp/wn/usr/share/doc/wordnet-base/copyright
 * Per part of speech, each one-word lemma with a synonym gets the other lemmas (of at most three words) of its
 * `SENSES` most frequent senses, at most `MAX_SYNONYMS`; the exception lists are kept for the base forms in the table.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { PARTS_OF_SPEECH, type PartOfSpeech } from '../core/page/thesaurus';

/** Senses read per part of speech (WordNet lists a lemma's senses most frequent first). */
const SENSES = 2;
const MAX_SYNONYMS = 8;
const OUT = 'public/thesaurus';

const [dir, copyright] = process.argv.slice(2);
if (!dir || !copyright) throw new Error('usage: make-thesaurus.ts <wordnet dict dir> <copyright file>');

const lines: string[] = [
  '# Sidetalk built-in thesaurus (scripts/make-thesaurus.ts): synonyms from WordNet 3.0.',
  '# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. Used under the WordNet 3.0 license (LICENSE-WordNet.txt).',
];
let kept = 0;
for (const pos of PARTS_OF_SPEECH) {
  const data = readFileSync(join(dir, `data.${pos}`));
  const lemmasAt = (offset: number): string[] => {
    const f = data.toString('latin1', offset, data.indexOf(10, offset)).split(' ');
    const count = parseInt(f[3]!, 16);
    return Array.from({ length: count }, (_, i) =>
      f[4 + i * 2]!.replace(/\(.*\)$/, '')
        .replace(/_/g, ' ')
        .toLowerCase(),
    );
  };
  const bases = new Set<string>();
  for (const line of readFileSync(join(dir, `index.${pos}`), 'latin1').split('\n')) {
    if (!line || line.startsWith(' ')) continue;
    const f = line.trim().split(' ');
    const lemma = f[0]!;
    if (lemma.includes('_') || !/^[a-z][a-z'-]*$/.test(lemma)) continue;
    const synsets = Number(f[2]);
    const synonyms: string[] = [];
    for (const offset of f.slice(f.length - synsets, f.length - synsets + SENSES).map(Number))
      for (const l of lemmasAt(offset))
        if (l !== lemma && !synonyms.includes(l) && l.split(' ').length <= 3 && !/[\t|]/.test(l)) synonyms.push(l);
    if (!synonyms.length) continue;
    bases.add(lemma);
    lines.push(`s\t${pos}\t${lemma}\t${synonyms.slice(0, MAX_SYNONYMS).join('|')}`);
    kept++;
  }
  for (const line of readFileSync(join(dir, `${pos}.exc`), 'latin1').split('\n')) {
    const [form, ...forms] = line.trim().split(' ');
    const known = forms.filter((b) => bases.has(b));
    if (form && known.length) lines.push(`x\t${pos as PartOfSpeech}\t${form}\t${known.join('|')}`);
  }
}
mkdirSync(OUT, { recursive: true });
const text = `${lines.join('\n')}\n`;
const gz = gzipSync(Buffer.from(text), { level: 9 });
writeFileSync(join(OUT, 'wordnet-synonyms.tsv.gz'), gz);
writeFileSync(join(OUT, 'LICENSE-WordNet.txt'), readFileSync(copyright));
console.log(
  `${kept} base forms, ${lines.length} lines, ${(text.length / 1e6).toFixed(2)} MB, gzip ${(gz.length / 1e6).toFixed(2)} MB`,
);
