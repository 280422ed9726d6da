/**
 * SentencePiece's normaliser, step for step as the reference library runs it (docs/tts.md, "Tokenizer: reference
 * comparison"), over UTF-8 bytes because its rules and whitespace tests are byte rules:
 * - the text is consumed one rule at a time: a user-defined piece verbatim (never normalised), else the longest
 *   `precompiled_charsmap` rule, else one character unchanged. Without a charsmap (identity normalisation) nothing
 *   is rewritten, so a tab, a newline or a no-break space is an ordinary character, not a space;
 * - "whitespace" means exactly the normalised output " " (U+0020): leading ones are dropped, a run collapses to one
 *   and trailing ones are dropped when `remove_extra_whitespaces` is set; spaces become ▁ when escaping;
 * - the dummy ▁ goes in front (or at the end when the trainer treated whitespace as a suffix).
 */
import { PrecompiledCharsMap } from './sentencepiece-charsmap';

export interface NormalizerSpec {
  name: string;
  addDummyPrefix: boolean;
  removeExtraWhitespaces: boolean;
  escapeWhitespaces: boolean;
  /** Empty when the model normalises nothing (identity). */
  precompiledCharsmap: Uint8Array;
}

export const WHITESPACE_MARK = '\u2581'; // ▁
const MARK_BYTES = [0xe2, 0x96, 0x81];
const SPACE = 0x20;

const utf8 = new TextEncoder();
// ignoreBOM: a leading U+FEFF is text to tokenise, not a byte-order mark.
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Byte length of the UTF-8 character a lead byte starts (the reference's table; a stray byte counts as one). */
function charLength(lead: number): number {
  const high = lead >> 4;
  return high < 12 ? 1 : high < 14 ? 2 : high === 14 ? 3 : 4;
}

export class SentencePieceNormalizer {
  private readonly charsMap: PrecompiledCharsMap | undefined;
  private readonly userDefined: Uint8Array[];

  constructor(
    readonly spec: NormalizerSpec,
    private readonly opts: { treatWhitespaceAsSuffix: boolean; userDefinedPieces: readonly string[] },
  ) {
    this.charsMap = spec.precompiledCharsmap.length > 0 ? PrecompiledCharsMap.parse(spec.precompiledCharsmap) : undefined;
    this.userDefined = opts.userDefinedPieces.map((p) => utf8.encode(p)).filter((b) => b.length > 0);
  }

  /** Text → the string the lattice runs over. */
  normalize(text: string): string {
    const input = utf8.encode(text);
    const spec = this.spec;
    let pos = 0;
    if (spec.removeExtraWhitespaces) {
      while (pos < input.length) {
        const [out, used] = this.normalizePrefix(input, pos);
        if (!(out.length === 1 && out[0] === SPACE)) break;
        pos += used;
      }
    }
    if (pos >= input.length) return '';

    const bytes: number[] = [];
    const addSpace = () => (spec.escapeWhitespaces ? bytes.push(...MARK_BYTES) : bytes.push(SPACE));
    if (!this.opts.treatWhitespaceAsSuffix && spec.addDummyPrefix) addSpace();
    let prevSpace = spec.removeExtraWhitespaces;
    while (pos < input.length) {
      const [out, used] = this.normalizePrefix(input, pos);
      let start = 0;
      while (prevSpace && start < out.length && out[start] === SPACE) start++;
      if (start < out.length) {
        for (let i = start; i < out.length; i++) {
          if (out[i] === SPACE) addSpace();
          else bytes.push(out[i]!);
        }
        prevSpace = out[out.length - 1] === SPACE;
      }
      pos += used;
      if (!spec.removeExtraWhitespaces) prevSpace = false;
    }
    if (spec.removeExtraWhitespaces) {
      const tail = spec.escapeWhitespaces ? MARK_BYTES : [SPACE];
      while (endsWith(bytes, tail)) bytes.length -= tail.length;
    }
    if (this.opts.treatWhitespaceAsSuffix && spec.addDummyPrefix) addSpace();
    return utf8Decoder.decode(new Uint8Array(bytes));
  }

  /** One rule's output and the input bytes it consumed. */
  private normalizePrefix(input: Uint8Array, pos: number): [Uint8Array, number] {
    let longest = 0;
    for (const piece of this.userDefined) {
      if (piece.length > longest && startsWithAt(input, pos, piece)) longest = piece.length;
    }
    if (longest > 0) return [input.subarray(pos, pos + longest), longest];
    const rule = this.charsMap?.match(input, pos);
    if (rule) return [rule.replacement, rule.length];
    const n = Math.min(charLength(input[pos]!), input.length - pos);
    return [input.subarray(pos, pos + n), n];
  }
}

function startsWithAt(bytes: Uint8Array, pos: number, prefix: Uint8Array): boolean {
  if (pos + prefix.length > bytes.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[pos + i] !== prefix[i]) return false;
  return true;
}

function endsWith(bytes: readonly number[], tail: readonly number[]): boolean {
  if (bytes.length < tail.length) return false;
  for (let i = 0; i < tail.length; i++) if (bytes[bytes.length - tail.length + i] !== tail[i]) return false;
  return true;
}
