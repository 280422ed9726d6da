/**
 * Is a short burst of speech over the reply a backchannel ("mm-hm", "yeah", "right", a cough) or an interruption
 * ("stop", "wait", a question)? The barge detector already decided it was short (it stopped before counting as an
 * interruption, core/engine/barge-detector.ts); this looks at what ASR heard in it (docs/echo.md, "Backchannels").
 *
 * Words alone do not decide: a long burst never gets here, and what does get here is only released when it is no
 * words at all (a cough, a breath, a hum ASR writes as a sound) or at most three words that are all listener tokens.
 * The token lists cover the languages the speech models transcribe; a word not on them interrupts, so an unknown
 * language errs on the side of stopping.
 */
import { isNonSpeechTranscript } from '../text/transcript-quality';

/** Listener tokens: acknowledging, agreeing, or showing interest, never asking for the floor. */
const TOKENS = new Set(
  [
    // English
    'mm',
    'mhm',
    'mmhm',
    'mm-hm',
    'mm-hmm',
    'hmm',
    'hm',
    'uh-huh',
    'uhhuh',
    'aha',
    'ah',
    'oh',
    'ooh',
    'wow',
    'yeah',
    'yea',
    'yes',
    'yep',
    'yup',
    'right',
    'okay',
    'ok',
    'sure',
    'cool',
    'nice',
    'true',
    'exactly',
    'indeed',
    'i',
    'see',
    'got',
    'it',
    'totally',
    // German, French, Spanish, Italian, Portuguese, Dutch
    'ja',
    'genau',
    'stimmt',
    'achso',
    'oui',
    'ouais',
    'voilà',
    'voila',
    "d'accord",
    'sí',
    'si',
    'claro',
    'vale',
    'vero',
    'certo',
    'sim',
    'pois',
    'precies',
    'klopt',
  ].map((w) => w.normalize('NFC')),
);

/** True when `text` (what ASR heard in the burst) is a backchannel: no words, or up to three listener tokens. */
export function isBackchannel(text: string): boolean {
  if (isNonSpeechTranscript(text)) return true;
  const words = text
    .toLowerCase()
    .normalize('NFC')
    .split(/[\s,.!?;:…]+/)
    .filter(Boolean);
  return words.length > 0 && words.length <= 3 && words.every((w) => TOKENS.has(w));
}

const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFC')
    .split(/[^\p{L}\p{N}'-]+/u)
    .filter(Boolean);

/**
 * The burst is the reply's own voice coming back (an echo the canceller let through): three or more words, at least
 * two thirds of them found in order in one stretch of the reply about as long (ASR may mishear, drop or add a word).
 * Fewer never count: two short words ("and … the") are found in order in any long reply, so "and the old" over a
 * story was held as its echo; a short echo is found by its audio instead (burst-echo.ts). So "stop" over a reply about
 * a bus stop still stops it, and a question that reuses the reply's words in its own order ("and the old village
 * in…" over a reply about a quiet village) is the user's.
 */
export function isOwnEcho(text: string, spoken: string): boolean {
  const words = wordsOf(text);
  if (words.length < 3) return false;
  const said = wordsOf(spoken);
  const need = Math.max(3, (2 * words.length) / 3);
  const span = words.length + 2;
  for (let at = 0; at < Math.max(1, said.length - words.length + 1); at++) {
    if (inOrder(words, said.slice(at, at + span)) >= need) return true;
  }
  return false;
}

/** How many of `a` appear in `b` in the same order (longest common subsequence). */
function inOrder(a: string[], b: string[]): number {
  let row = new Array<number>(b.length + 1).fill(0);
  for (const word of a) {
    const next = [0];
    for (let j = 0; j < b.length; j++) next.push(word === b[j] ? row[j]! + 1 : Math.max(row[j + 1]!, next[j]!));
    row = next;
  }
  return row[b.length]!;
}

/** The reply's last words an echo of its end can hold: ≈ 4 s of speech, longer than any echo delay measured. */
const ECHO_TAIL_WORDS = 12;

/**
 * An utterance that opened just after a reply (within the longest echo delay and the room's reverb) and says the
 * reply's own last words is that reply's echo, not the user: the canceller lets the end of a reply through once the
 * far end falls silent (docs/echo.md, "The echo of the reply's end"). Its words must be a run of the reply's last
 * words, in order, at least two of them (one for a one-word reply): a question that reuses the reply's words ("what
 * was at the top of the tower?") adds words of its own.
 */
export function isEchoOfReplyEnd(text: string, spoken: string): boolean {
  const heard = wordsOf(text);
  const tail = wordsOf(spoken).slice(-ECHO_TAIL_WORDS);
  if (heard.length < Math.min(2, tail.length) || heard.length > tail.length) return false;
  for (let at = 0; at + heard.length <= tail.length; at++) {
    if (heard.every((w, i) => tail[at + i] === w)) return true;
  }
  return false;
}

/**
 * What a burst over the reply was: the reply's own echo (its words, or its audio: burst-echo.ts), a listener's
 * backchannel, or the user asking for the floor. Only the echo teaches the barge gate's floor (residual-floor.ts): a
 * listener's "mm-hm" is the user's voice.
 */
export type BurstVerdict = 'own-echo' | 'backchannel' | 'interrupt';

/**
 * What ASR hears in the burst decides; a burst ASR cannot read (it failed, or was cancelled with the reply) is left
 * as a backchannel: the reply it was over goes on rather than being cut on a guess, and nothing is learned from it.
 */
export async function readBurstWords(
  pcm16k: Float32Array,
  transcribe: (pcm16k: Float32Array) => Promise<{ text: string }>,
  spoken = '',
): Promise<BurstVerdict> {
  try {
    const { text } = await transcribe(pcm16k);
    if (isBackchannel(text)) return 'backchannel';
    return isOwnEcho(text, spoken) ? 'own-echo' : 'interrupt';
  } catch {
    return 'backchannel';
  }
}
