/**
 * Turns LLM output into text a TTS voice can read: no markdown markers, list bullets, link targets, code fences,
 * HTML or emoji. Runs per chunk (after the chunker), so it must cope with markers split across chunks, e.g. a
 * chunk that opens "**bold" and a later one that closes it: stray markers are simply dropped.
 */

const EMOJI = /[\p{Extended_Pictographic}\p{Regional_Indicator}\u{FE0F}\u{200D}\u{20E3}\u{1F3FB}-\u{1F3FF}]/gu; // eslint-disable-line no-misleading-character-class -- joiners, selectors and skin tones are listed to be stripped one code point at a time

export function sanitizeForSpeech(text: string): string {
  let s = text;
  s = s.replace(/```[a-zA-Z0-9_-]*\n?/g, ' '); // code fences (keep the code words; rare in voice replies)
  s = s.replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1'); // images → alt text
  s = s.replace(/\[([^\]]+)\]\((?:[^)]*)\)/g, '$1'); // links → their text
  s = s.replace(/<\/?[a-zA-Z][^>]*>/g, ' '); // HTML tags
  s = s.replace(/\bhttps?:\/\/[^\s)]+/g, 'a link');
  s = s.replace(/\bwww\.[^\s)]+/g, 'a link');
  s = s.replace(/^\s{0,3}#{1,6}\s+/gm, ''); // headings
  s = s.replace(/^\s{0,3}>\s?/gm, ''); // block quotes
  s = s.replace(/^\s*(?:[-*+•]|\d{1,2}[.)])\s+/gm, ''); // list bullets and numbers at line start
  s = s.replace(/^\s*(?:[-*_]\s*){3,}$/gm, ''); // horizontal rules
  s = s.replace(/`+/g, ''); // inline code markers
  s = s.replace(/(\*\*|__|\*|~~)/g, ''); // emphasis markers
  s = s.replace(/(^|\s)_([^_\s][^_]*)_(?=\s|$|[.,!?])/g, '$1$2'); // _emphasis_ (not snake_case)
  s = s.replace(/\|/g, ', '); // table pipes read as pauses
  s = s.replace(EMOJI, '');
  s = s.replace(/\s*\n+\s*/g, '. ').replace(/([.!?])\.\s/g, '$1 '); // line breaks become sentence breaks
  s = s
    .replace(/\s{2,}/g, ' ')
    .replace(/\s+([,.!?;:])/g, '$1')
    .replace(/^[\s.,;:]+/, '');
  return s.trim();
}

/** True when a chunk has nothing speakable left (only symbols or whitespace after sanitising). */
export function isSpeakable(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text);
}
