/**
 * Splits a streamed LLM reply into chunks for TTS. Each chunk is synthesised as a whole utterance, so a cut that is
 * not a real sentence end gets final intonation and a pause: split only at real punctuation. The first chunk may
 * flush at a clause break (comma, semicolon, colon, dash) once it is long enough, because time to first audio is
 * what the user feels; later chunks wait for sentence ends. A run-on without punctuation is cut at a cap.
 */
import { textTunables } from '../tunables';

/** Words that end in a period without ending a sentence. Lower case, without the final period. */
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'sr',
  'jr',
  'st',
  'mt',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'cf',
  'approx',
  'no',
  'fig',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
  'a.m',
  'p.m',
  'u.s',
  'inc',
  'ltd',
  'co',
  'dept',
  'est',
  'gen',
  'gov',
  'lt',
  'col',
  'sgt',
  'capt',
  'rev',
  'ave',
  'blvd',
  'rd',
]);
/** "etc." at the end of a clause usually does end the sentence when followed by a capital; handled below. */
const ENDS_SENTENCE_BEFORE_CAPITAL = new Set(['etc']);

const SENTENCE_END = /[.!?…]/;
const CLAUSE_BREAK = /[,;:—–]/;

export interface ChunkerOptions {
  firstClauseMinWords?: number;
  firstClauseMinChars?: number;
  maxChunkChars?: number;
}

export class SentenceChunker {
  private buffer = '';
  private emitted = 0;

  constructor(private readonly options: ChunkerOptions = {}) {}

  /** Adds a text delta; returns the chunks that are complete now (possibly none). */
  push(delta: string): string[] {
    this.buffer += delta;
    const out: string[] = [];
    for (;;) {
      const cut = this.findCut();
      if (cut <= 0) break;
      const chunk = this.buffer.slice(0, cut).trim();
      this.buffer = this.buffer.slice(cut).replace(/^\s+/, '');
      if (chunk) {
        out.push(chunk);
        this.emitted++;
      }
    }
    return out;
  }

  /** End of the stream: whatever is left is the last chunk. */
  flush(): string[] {
    const rest = this.buffer.trim();
    this.buffer = '';
    if (!rest) return [];
    this.emitted++;
    return [rest];
  }

  /** Number of chunks handed out so far. */
  get count(): number {
    return this.emitted;
  }

  private findCut(): number {
    const text = this.buffer;
    const maxChars = this.options.maxChunkChars ?? textTunables.maxChunkChars;
    for (let i = 0; i < text.length - 1; i++) {
      const ch = text[i] ?? '';
      const next = text[i + 1] ?? '';
      if (!/\s/.test(next)) continue; // "3.5", "e.g.x", "..." mid-run: not decidable or not an end
      if (SENTENCE_END.test(ch) && this.isSentenceEnd(text, i)) return i + 1;
      if (this.emitted === 0 && CLAUSE_BREAK.test(ch) && this.longEnoughForFirstClause(text.slice(0, i))) return i + 1;
      if (i + 1 >= maxChars) break;
    }
    if (text.length > maxChars) return this.runOnCut(text, maxChars);
    return 0;
  }

  private isSentenceEnd(text: string, i: number): boolean {
    if (text[i] !== '.') return true;
    const before = text.slice(0, i);
    const word = (/(\S+)$/.exec(before)?.[1] ?? '').replace(/^[("'“‘[]+/, '');
    const lower = word.toLowerCase();
    if (/^\d+$/.test(word)) {
      // "in 1999. Then" ends a sentence, "No. 5" and list numbers "1. " at the start do not.
      return before.trim().length > word.length;
    }
    if (/^[A-Z]$/.test(word)) return false; // an initial: "J. R. R. Tolkien"
    if (ABBREVIATIONS.has(lower)) {
      if (!ENDS_SENTENCE_BEFORE_CAPITAL.has(lower)) return false;
      const after = text.slice(i + 1).trimStart();
      return /^[A-Z]/.test(after);
    }
    return true;
  }

  private longEnoughForFirstClause(head: string): boolean {
    const minWords = this.options.firstClauseMinWords ?? textTunables.firstClauseMinWords;
    const minChars = this.options.firstClauseMinChars ?? textTunables.firstClauseMinChars;
    const trimmed = head.trim();
    if (trimmed.length < minChars) return false;
    if (trimmed.split(/\s+/).length < minWords) return false;
    // A number like "1,000" never reaches here (no space after the comma); "Well, " is short and waits.
    return true;
  }

  /** A run-on: prefer the last clause break before the cap, else the last space. */
  private runOnCut(text: string, maxChars: number): number {
    const window = text.slice(0, maxChars);
    let clause = -1;
    for (let i = window.length - 2; i > maxChars / 3; i--) {
      if (CLAUSE_BREAK.test(window[i] ?? '') && /\s/.test(window[i + 1] ?? '')) {
        clause = i + 1;
        break;
      }
    }
    if (clause > 0) return clause;
    const space = window.lastIndexOf(' ');
    return space > 0 ? space : maxChars;
  }
}
