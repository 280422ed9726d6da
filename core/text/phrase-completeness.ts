/**
 * Does a transcript sound finished? Used to pick the endpoint silence: a phrase that ends on "and", "so", "um" or
 * "because" is mid-thought and gets a long wait; one that ends like a sentence gets a short one.
 */
import { words } from './transcript-quality';

const TRAILING_CONTINUERS = new Set([
  'and',
  'so',
  'but',
  'or',
  'because',
  'cause',
  'um',
  'uh',
  'erm',
  'er',
  'hmm',
  'like',
  'then',
  'if',
  'when',
  'the',
  'a',
  'an',
  'to',
  'of',
  'with',
  'for',
  'my',
  'your',
  'is',
  'are',
  'was',
  'that',
  'which',
  'who',
  'about',
  'in',
  'on',
  'at',
  'from',
  'also',
  'maybe',
  'well',
  'actually',
  'basically',
  'i',
  "i'm",
  'we',
  'you',
]);

export type Completeness = 'complete' | 'trailing' | 'neutral';

export function phraseCompleteness(text: string): Completeness {
  const trimmed = text.trim();
  if (!trimmed) return 'neutral';
  if (/(?:\.\.\.|…|,|-|—)$/.test(trimmed)) return 'trailing';
  const w = words(trimmed);
  const last = w[w.length - 1] ?? '';
  if (TRAILING_CONTINUERS.has(last)) return 'trailing';
  if (/[.!?]$/.test(trimmed)) return 'complete';
  // ASR without punctuation: two or more words not ending on a continuer read as complete enough.
  return w.length >= 2 ? 'complete' : 'neutral';
}
