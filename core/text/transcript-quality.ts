/**
 * Gates on what ASR heard and on what the LLM writes. A garbled transcript (a decoder loop, words from noise) is
 * answered with a clarify line instead of a confident answer to a question nobody asked; a degenerate LLM stream
 * (the same phrase over and over) is cut before it is spoken.
 */

const FUNCTION_WORDS = new Set([
  'the',
  'a',
  'an',
  'of',
  'to',
  'in',
  'on',
  'at',
  'by',
  'for',
  'with',
  'about',
  'from',
  'into',
  'onto',
  'over',
  'under',
  'and',
  'or',
  'but',
  'as',
  'than',
  'then',
  'that',
  'this',
  'these',
  'those',
  'is',
  'are',
  'was',
  'were',
]);
/** Pairs of function words that real English puts side by side ("out of the", "in the", "is a"): not salad. */
const PREPOSITIONS = new Set([
  'of',
  'to',
  'in',
  'on',
  'at',
  'by',
  'for',
  'with',
  'about',
  'from',
  'into',
  'onto',
  'over',
  'under',
]);
const ARTICLES = new Set(['the', 'a', 'an']);

/** Whisper-style non-speech outputs that mean "nothing was said". */
const NON_SPEECH = /^\s*(?:[[(][^\])]*[\])]\s*)+$|^\s*(?:\.+|…|♪+)\s*$/;

export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'\s-]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);
}

/** "[BLANK_AUDIO]", "(music)", "..." — treat as an empty transcript. */
export function isNonSpeechTranscript(text: string): boolean {
  return text.trim() === '' || NON_SPEECH.test(text);
}

export interface GarbleVerdict {
  garbled: boolean;
  reason?: 'low-variety' | 'word-loop' | 'repeated-trigram' | 'function-salad';
}

/** Needs ≥ 6 words to judge; short turns ("yes", "what time is it") are never called garbled. */
export function judgeTranscript(text: string): GarbleVerdict {
  const w = words(text);
  if (w.length < 6) return { garbled: false };
  const distinct = new Set(w).size;
  if (distinct / w.length < 0.4) return { garbled: true, reason: 'low-variety' };
  for (let i = 2; i < w.length; i++) {
    // "very very" and "that that" happen in speech; three in a row is a decoder loop.
    if (w[i] === w[i - 1] && w[i] === w[i - 2]) return { garbled: true, reason: 'word-loop' };
  }
  // People do repeat a phrase once ("I want to… I want to go"); a third copy is a decoder loop.
  const trigrams = new Map<string, number>();
  for (let i = 0; i + 2 < w.length; i++) {
    const t = `${w[i]} ${w[i + 1]} ${w[i + 2]}`;
    const n = (trigrams.get(t) ?? 0) + 1;
    if (n >= 3) return { garbled: true, reason: 'repeated-trigram' };
    trigrams.set(t, n);
  }
  for (let i = 0; i + 2 < w.length; i++) {
    const run = [w[i], w[i + 1], w[i + 2]] as string[];
    if (run.every((x) => FUNCTION_WORDS.has(x)) && !plausibleFunctionRun(run)) {
      return { garbled: true, reason: 'function-salad' };
    }
  }
  return { garbled: false };
}

export function isGarbledTranscript(text: string): boolean {
  return judgeTranscript(text).garbled;
}

/** "out of the", "is in the", "to the" … end in an article after a preposition or verb: plausible. */
function plausibleFunctionRun(run: string[]): boolean {
  const [a, b, c] = run as [string, string, string];
  if (
    ARTICLES.has(c) &&
    (PREPOSITIONS.has(b) || ['is', 'are', 'was', 'were', 'and', 'or', 'but', 'than', 'that', 'as'].includes(b))
  ) {
    return !ARTICLES.has(a);
  }
  if (['that', 'this', 'these', 'those'].includes(c) && (PREPOSITIONS.has(b) || ['and', 'but', 'or', 'is', 'was'].includes(b))) {
    return !ARTICLES.has(a);
  }
  return false;
}

/**
 * True when the text ends in a loop: the same 1–8 word phrase three times in a row, or one character repeated
 * 20+ times. Checked on the whole reply so far, so a loop is caught as soon as its third copy appears.
 */
export function isDegenerateText(text: string): boolean {
  if (/(.)\1{19,}/u.test(text.replace(/\s/g, ''))) return true;
  const w = words(text);
  for (let n = 1; n <= 8; n++) {
    if (w.length < n * 3) break;
    const tail = w.slice(w.length - n).join(' ');
    const prev = w.slice(w.length - 2 * n, w.length - n).join(' ');
    const prev2 = w.slice(w.length - 3 * n, w.length - 2 * n).join(' ');
    if (tail === prev && tail === prev2 && (n > 1 || w.length >= 4)) return true;
  }
  return false;
}

/** Tracks the sentences of one reply: refuses a sentence that repeats an earlier one or makes the reply loop. */
export class DegeneracyGuard {
  private readonly seen = new Set<string>();
  private text = '';

  accept(sentence: string): boolean {
    const key = words(sentence).join(' ');
    if (key.length > 0 && this.seen.has(key)) return false;
    const next = `${this.text} ${sentence}`;
    if (isDegenerateText(next)) return false;
    this.seen.add(key);
    this.text = next;
    return true;
  }
}
