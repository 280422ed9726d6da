/**
 * English text → mouth shapes (Oculus visemes), by spelling rules rather than a dictionary. Accuracy only needs to be
 * good enough for a cartoon mouth: the rules that matter visually are lips closing on m/b/p, lower lip to teeth on f/v,
 * rounding on o/u/w, and telling strong (stressed or long) vowels from weak ones so only the strong ones open wide.
 *
 * Why not TalkingHead's LipsyncEn: it maps w → FF and j → kk, emits invalid ids (EE, OO) and has no notion of stress
 * (reference §3); the structure here is simple enough to own and test.
 */
import type { Viseme } from '../avatar/required-names';

export interface Sound {
  viseme: Viseme;
  /** Vowel nucleus (a syllable); consonants are false. */
  vowel: boolean;
  /** Stressed or long vowel: allowed to open wide. */
  strong: boolean;
}

/** Short words that are almost never stressed in running speech. */
const FUNCTION_WORDS = new Set([
  'a',
  'an',
  'the',
  'to',
  'of',
  'and',
  'or',
  'but',
  'in',
  'on',
  'at',
  'by',
  'for',
  'as',
  'is',
  'it',
  'its',
  'be',
  'are',
  'was',
  'were',
  'am',
  'i',
  'you',
  'he',
  'she',
  'we',
  'they',
  'me',
  'him',
  'her',
  'us',
  'them',
  'my',
  'your',
  'our',
  'his',
  'their',
  'that',
  'this',
  'with',
  'from',
  'if',
  'so',
  'do',
  'does',
  'can',
  'will',
  'would',
  'could',
  'has',
  'have',
  'had',
  'not',
  'there',
  'than',
  'then',
  'up',
  'out',
  'about',
  'into',
  'just',
]);

type Rule = [pattern: string, visemes: Viseme[], long?: boolean];

// Longest patterns first. '^' = word start, '$' = word end.
const RULES: Rule[] = [
  ['tion', ['CH', 'E', 'nn']],
  ['sion', ['CH', 'E', 'nn']],
  ['igh', ['aa', 'I'], true],
  ['tch', ['CH']],
  ['^kn', ['nn']],
  ['^wr', ['RR']],
  ['mb$', ['PP']],
  ['que$', ['kk']],
  ['th', ['TH']],
  ['sh', ['CH']],
  ['ch', ['CH']],
  ['ph', ['FF']],
  ['wh', ['U']],
  ['ng', ['nn']],
  ['ck', ['kk']],
  ['qu', ['kk', 'U']],
  ['gh', []],
  ['ee', ['I'], true],
  ['ea', ['I'], true],
  ['ie', ['I'], true],
  ['ei', ['E'], true],
  ['oo', ['U'], true],
  ['ou', ['aa', 'U'], true],
  ['ow', ['O', 'U'], true],
  ['oi', ['O', 'I'], true],
  ['oy', ['O', 'I'], true],
  ['ai', ['E'], true],
  ['ay', ['E', 'I'], true],
  ['ey', ['E', 'I'], true],
  ['oa', ['O'], true],
  ['au', ['O'], true],
  ['aw', ['O'], true],
  ['ue', ['U'], true],
  ['ew', ['U'], true],
  ['er', ['E', 'RR']],
  ['ir', ['E', 'RR']],
  ['ur', ['E', 'RR']],
  ['ar', ['aa', 'RR']],
  ['or', ['O', 'RR']],
];

const SINGLE: Record<string, Viseme[]> = {
  a: ['aa'],
  e: ['E'],
  i: ['I'],
  o: ['O'],
  u: ['U'],
  y: ['I'],
  b: ['PP'],
  m: ['PP'],
  p: ['PP'],
  f: ['FF'],
  v: ['FF'],
  t: ['DD'],
  d: ['DD'],
  l: ['nn'],
  n: ['nn'],
  k: ['kk'],
  g: ['kk'],
  q: ['kk'],
  c: ['kk'],
  x: ['kk', 'SS'],
  s: ['SS'],
  z: ['SS'],
  j: ['CH'],
  r: ['RR'],
  w: ['U'],
  h: [],
};

const VOWEL_VISEMES = new Set<Viseme>(['aa', 'E', 'I', 'O', 'U']);
const isVowelLetter = (c: string | undefined): boolean => c !== undefined && 'aeiouy'.includes(c);

/** Splits text into lowercase words (letters and apostrophes), keeping the punctuation that follows each. */
export function splitWords(text: string): Array<{ word: string; punct: string }> {
  const out: Array<{ word: string; punct: string }> = [];
  const re = /([\p{L}\p{N}']+)([^\p{L}\p{N}']*)/gu;
  for (const m of text.matchAll(re)) out.push({ word: m[1]!, punct: m[2]!.trim() });
  return out;
}

/** Sounds of one word, with syllable stress marked. */
export function wordToSounds(raw: string): Sound[] {
  const w = raw.toLowerCase().replace(/[^a-z]/g, '');
  if (!w) return [];
  // Silent final e ("make", "time"): dropped, and it makes the previous vowel long.
  const magicE = w.length > 2 && w.endsWith('e') && !isVowelLetter(w[w.length - 2]) && isVowelLetter(w[w.length - 3]);
  const letters = magicE ? w.slice(0, -1) : w;
  const sounds: Array<Sound & { long: boolean }> = [];
  let i = 0;
  while (i < letters.length) {
    let matched = false;
    for (const [pat, vis, long] of RULES) {
      const atStart = pat.startsWith('^');
      const atEnd = pat.endsWith('$');
      const body = pat.replace(/[$^]/g, '');
      if (atStart && i !== 0) continue;
      if (!letters.startsWith(body, i)) continue;
      if (atEnd && i + body.length !== letters.length) continue;
      for (const v of vis) sounds.push({ viseme: v, vowel: VOWEL_VISEMES.has(v), strong: false, long: !!long });
      i += body.length;
      matched = true;
      break;
    }
    if (matched) continue;
    const c = letters[i]!;
    const next = letters[i + 1];
    let vis = SINGLE[c] ?? [];
    if ((c === 'c' || c === 'g') && (next === 'e' || next === 'i' || next === 'y')) vis = c === 'c' ? ['SS'] : ['CH'];
    if (c === 'y' && i === 0) vis = ['I'];
    // Doubled consonants ("hello", "apple") are one sound.
    if (c === letters[i - 1] && !isVowelLetter(c)) vis = [];
    for (const v of vis)
      sounds.push({ viseme: v, vowel: VOWEL_VISEMES.has(v) && !(c === 'y' && i === 0), strong: false, long: false });
    i += 1;
  }
  if (magicE) {
    const lastVowel = [...sounds].reverse().find((s) => s.vowel);
    if (lastVowel) lastVowel.long = true;
  }
  // Stress: function words get none; otherwise the first vowel nucleus and every long vowel are strong.
  if (!FUNCTION_WORDS.has(w)) {
    let firstDone = false;
    for (const s of sounds) {
      if (!s.vowel) continue;
      if (!firstDone || s.long) s.strong = true;
      firstDone = true;
    }
  }
  return sounds.map(({ viseme, vowel, strong }) => ({ viseme, vowel, strong }));
}
