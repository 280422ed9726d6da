// Per-character pronunciation overrides, applied to the text handed to TTS only (captions and the transcript keep
// the real spelling). Rules, chosen so an override never mangles a neighbouring word:
// - whole words only: "Sidetalk" does not touch "Sidetalks" or "MySidetalk"; a letter or digit on either side blocks it;
// - case-insensitive: "SIDETALK" and "sidetalk" match too; the replacement is inserted as written;
// - punctuation around a word is kept: "Sidetalk, please" → "Side talk, please";
// - a possessive 's stays: "Sidetalk's" → "Side talk's" (apostrophe + other letters, as in "don't", blocks it);
// - longest word first, one pass: "New York" beats "New", and a replacement is never re-replaced.
import type { Pronunciation } from './character';

const WORD_CHAR = /[\p{L}\p{N}]/u;
const APOSTROPHES = new Set(["'", '\u2019']);

interface Compiled {
  pattern: RegExp;
  sayAs: string;
}

/** Compile once per character (the list changes only when the user edits it). */
export function compilePronunciations(list: readonly Pronunciation[]): (text: string) => string {
  const compiled: Compiled[] = [...list]
    .filter((p) => p.word.trim().length > 0)
    .sort((a, b) => b.word.trim().length - a.word.trim().length)
    .map((p) => ({ pattern: new RegExp(escapeRegExp(p.word.trim()).replace(/\s+/g, '\\s+'), 'iuy'), sayAs: p.sayAs }));
  if (compiled.length === 0) return (text) => text;
  return (text) => {
    let out = '';
    let i = 0;
    while (i < text.length) {
      const hit = atBoundary(text, i) ? matchAt(compiled, text, i) : null;
      if (hit) {
        out += hit.sayAs;
        i += hit.length;
      } else {
        out += text[i];
        i++;
      }
    }
    return out;
  };
}

export function applyPronunciations(text: string, list: readonly Pronunciation[]): string {
  return compilePronunciations(list)(text);
}

function matchAt(compiled: readonly Compiled[], text: string, at: number): { sayAs: string; length: number } | null {
  for (const c of compiled) {
    c.pattern.lastIndex = at;
    const m = c.pattern.exec(text);
    if (m && endsAtBoundary(text, at + m[0].length, m[0])) return { sayAs: c.sayAs, length: m[0].length };
  }
  return null;
}

function atBoundary(text: string, at: number): boolean {
  if (at === 0) return true;
  const prev = text[at - 1]!;
  if (WORD_CHAR.test(prev)) return false;
  // "O'Brien": an apostrophe between letters is inside a word.
  if (APOSTROPHES.has(prev) && at >= 2 && WORD_CHAR.test(text[at - 2]!)) return false;
  return true;
}

function endsAtBoundary(text: string, end: number, matched: string): boolean {
  // A word that itself ends in a non-word character ("C++") ends at its own boundary.
  if (!WORD_CHAR.test(matched[matched.length - 1]!)) return true;
  const next = text[end];
  if (next === undefined) return true;
  if (WORD_CHAR.test(next)) return false;
  if (APOSTROPHES.has(next) && WORD_CHAR.test(text[end + 1] ?? '')) {
    // Possessive 's (followed by a non-letter) is fine; "don't"-style contractions are a different word.
    return /^s$/i.test(text[end + 1]!) && !WORD_CHAR.test(text[end + 2] ?? '');
  }
  return true;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
