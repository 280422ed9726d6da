// Last line of defence before TTS: whatever the model emits (the persona prompt asks for plain speech, but remote
// and small models ignore that), the voice must not read markdown, bullets, link targets, emoji or code.
// Markdown/link/emoji/list stripping is core/text's sanitizeForSpeech; this adds what it leaves in on purpose or
// can't see within one chunk: whole code blocks (it keeps code words), <think> reasoning blocks some servers stream
// inline, and citation markers like [1]. `SpeakableFilter` carries the "inside a block" state across chunks.
import { sanitizeForSpeech } from '../text/speech-sanitizer';

const FENCE = /```/;
const THINK_OPEN = /<think>/i;
const THINK_CLOSE = /<\/think>/i;
const CITATION = /\[\^?\d{1,3}\]/g;

/** Whole-text version: for a complete reply, or a greeting. */
export function toSpeakable(text: string): string {
  const filter = new SpeakableFilter();
  return joinSpoken(filter.push(text), filter.end());
}

/**
 * Chunk-by-chunk version for the streaming path (after the sentence chunker): feed each chunk, speak what comes back.
 * A code block or think block that opens in one chunk swallows everything until it closes in a later one.
 */
export class SpeakableFilter {
  private inside: 'code' | 'think' | null = null;

  push(chunk: string): string {
    let rest = chunk;
    let kept = '';
    while (rest.length > 0) {
      if (this.inside) {
        const close = this.inside === 'code' ? FENCE.exec(rest) : THINK_CLOSE.exec(rest);
        if (!close) return finish(kept);
        rest = rest.slice(close.index + close[0].length);
        // A fence's closing line may carry nothing useful; the language tag only follows an opening fence.
        this.inside = null;
        continue;
      }
      const fence = FENCE.exec(rest);
      const think = THINK_OPEN.exec(rest);
      const first = [fence && { kind: 'code' as const, m: fence }, think && { kind: 'think' as const, m: think }]
        .filter((x): x is { kind: 'code' | 'think'; m: RegExpExecArray } => x !== null)
        .sort((a, b) => a.m.index - b.m.index)[0];
      if (!first) {
        kept += rest;
        break;
      }
      kept += rest.slice(0, first.m.index) + ' ';
      rest = rest.slice(first.m.index + first.m[0].length);
      this.inside = first.kind;
    }
    return finish(kept);
  }

  /** Call at the end of a reply: an unclosed block is dropped, state resets for the next reply. */
  end(): string {
    this.inside = null;
    return '';
  }
}

/** A URL's trailing sentence punctuation is not part of it (sanitizeForSpeech would swallow the full stop). */
const URL_BEFORE_PUNCTUATION = /\b(?:https?:\/\/|www\.)[^\s)]+?(?=[.,!?;:]*(?:\s|$))/g;

function finish(text: string): string {
  const spoken = sanitizeForSpeech(text.replace(CITATION, '').replace(URL_BEFORE_PUNCTUATION, 'a link'));
  // "Run this:" followed by a dropped code block would read as "Run this:." – keep only the full stop.
  return spoken.replace(/[:;,]\./g, '.');
}

function joinSpoken(...parts: string[]): string {
  return parts.filter((p) => p.length > 0).join(' ');
}
