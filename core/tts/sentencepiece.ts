/**
 * SentencePiece unigram tokenizer over a real `tokenizer.model` (a serialized `sentencepiece.ModelProto`), giving
 * the reference C++ library's ids exactly: tests/unit/tts/sentencepiece-reference.test.ts encodes thousands of
 * varied strings with this class and with the library compiled to WebAssembly, over models the reference trainer
 * made, and requires zero differences (docs/tts.md, "Tokenizer: reference comparison").
 *
 * Encoding = normalise (sentencepiece-normalizer.ts: the model's `precompiled_charsmap`, whitespace rules, ▁) →
 * Viterbi over code points maximising the sum of piece scores → characters no piece covers become UTF-8 byte pieces
 * (`<0xAB>`) with byte fallback, else one merged `<unk>` per run. The Viterbi keeps the reference's arithmetic:
 * path scores are stored as float32, a piece's candidate is compared before rounding, an unknown character's
 * candidate after, and ties keep the earlier candidate; user-defined pieces score `bytes × max(normal scores,
 * FLT_MIN) − 0.1` so they always win, and unused pieces never match. Float32 rounding decides between paths that
 * are equal in exact arithmetic, most often over runs of one repeated character, so float64 sums give other ids.
 * Decoding follows the reference too (the same test compares the text). The protobuf is read by sentencepiece-model.ts.
 */
import { CharsMapError } from './sentencepiece-charsmap';
import { PieceType, readModelProto, TokenizerModelError, type Piece, type TokenizerOptions } from './sentencepiece-model';
import { SentencePieceNormalizer, WHITESPACE_MARK, type NormalizerSpec } from './sentencepiece-normalizer';

export { PieceType, TokenizerModelError, WHITESPACE_MARK, type NormalizerSpec, type Piece, type TokenizerOptions };

/** The reference scores an unknown character this far below the lowest normal piece (kUnkPenalty). */
const UNK_PENALTY = 10;
/** The reference starts its running max/min of normal scores at FLT_MIN / FLT_MAX (float32 limits). */
const FLT_MIN = 1.1754943508222875e-38;
const FLT_MAX = 3.4028234663852886e38;

/** UTF-8 byte length of one code point (user-defined scores count bytes, as the reference does). */
function utf8Length(char: string): number {
  const cp = char.codePointAt(0)!;
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

interface Step {
  id: number;
  surface: string;
}

export class SentencePieceTokenizer {
  readonly pieces: readonly Piece[];
  readonly normalizer: NormalizerSpec;
  readonly unkId: number;
  readonly bosId: number;
  readonly eosId: number;
  readonly byteFallback: boolean;
  readonly treatWhitespaceAsSuffix: boolean;
  readonly unkSurface: string;
  private readonly normalizerImpl: SentencePieceNormalizer;
  private readonly lookup = new Map<string, number>();
  private readonly byteIds: number[];
  private readonly maxPieceChars: number;
  private readonly unkScore: number;
  private readonly userDefinedUnit: number;

  constructor(pieces: Piece[], normalizer: NormalizerSpec, opts: TokenizerOptions) {
    if (pieces.length === 0) throw new TokenizerModelError('tokenizer has no pieces');
    this.pieces = pieces;
    this.normalizer = normalizer;
    this.unkId = opts.unkId;
    this.bosId = opts.bosId;
    this.eosId = opts.eosId;
    this.byteFallback = opts.byteFallback;
    this.treatWhitespaceAsSuffix = opts.treatWhitespaceAsSuffix ?? false;
    this.unkSurface = opts.unkSurface ?? ' \u2047 ';
    if (this.unkId < 0 || this.unkId >= pieces.length || pieces[this.unkId]!.type !== PieceType.Unknown) {
      throw new TokenizerModelError(`unk_id ${this.unkId} is not an <unk> piece`);
    }
    // A byte piece the model lacks falls back to <unk>, as the reference's piece lookup does.
    this.byteIds = new Array<number>(256).fill(this.unkId);
    let maxLen = 1;
    let minScore = FLT_MAX;
    let maxScore = FLT_MIN;
    const userDefined: string[] = [];
    pieces.forEach((p, id) => {
      if (p.type === PieceType.Normal || p.type === PieceType.UserDefined) {
        if (!this.lookup.has(p.piece)) this.lookup.set(p.piece, id);
        maxLen = Math.max(maxLen, [...p.piece].length);
      }
      if (p.type === PieceType.Normal) {
        minScore = Math.min(minScore, p.score);
        maxScore = Math.max(maxScore, p.score);
      } else if (p.type === PieceType.UserDefined) userDefined.push(p.piece);
      else if (p.type === PieceType.Byte) {
        const m = /^<0x([0-9A-F]{2})>$/.exec(p.piece);
        if (m) this.byteIds[parseInt(m[1]!, 16)] = id;
      }
    });
    this.maxPieceChars = maxLen;
    this.unkScore = Math.fround(minScore - UNK_PENALTY);
    this.userDefinedUnit = Math.fround(maxScore);
    try {
      this.normalizerImpl = new SentencePieceNormalizer(normalizer, {
        treatWhitespaceAsSuffix: this.treatWhitespaceAsSuffix,
        userDefinedPieces: userDefined,
      });
    } catch (e) {
      if (e instanceof CharsMapError) throw new TokenizerModelError(e.message);
      throw e;
    }
  }

  /** Parses `tokenizer.model` bytes. Throws TokenizerModelError for anything that is not a unigram ModelProto. */
  static fromModelBytes(bytes: Uint8Array): SentencePieceTokenizer {
    const { pieces, normalizer, trainer } = readModelProto(bytes);
    if (trainer.modelType !== 1) throw new TokenizerModelError(`model_type ${trainer.modelType} is not unigram (1)`);
    return new SentencePieceTokenizer(pieces, normalizer, trainer);
  }

  get vocabSize(): number {
    return this.pieces.length;
  }

  /** Id of any piece (normal, control, byte …) by its exact text. */
  pieceToId(piece: string): number | undefined {
    const id = this.lookup.get(piece);
    if (id !== undefined) return id;
    const i = this.pieces.findIndex((p) => p.piece === piece);
    return i >= 0 ? i : undefined;
  }

  /** Text → the string the lattice runs over (the model's normalisation, ▁ for spaces, dummy prefix). */
  normalize(text: string): string {
    return this.normalizerImpl.normalize(text);
  }

  encode(text: string): number[] {
    return this.segment(this.normalize(text)).map((s) => s.id);
  }

  encodePieces(text: string): string[] {
    return this.segment(this.normalize(text)).map((s) => this.pieces[s.id]!.piece);
  }

  /** Viterbi best path in the reference's float32 arithmetic; each step is a piece or one uncovered character. */
  private segment(normalized: string): Step[] {
    const chars = [...normalized];
    const n = chars.length;
    const best = new Float32Array(n + 1);
    const from = new Int32Array(n + 1).fill(-1); // -1: no path ends here yet
    const backId = new Int32Array(n + 1);
    const consider = (start: number, end: number, candidate: number, id: number) => {
      if (from[end] === -1 || candidate > best[end]!) {
        best[end] = candidate;
        from[end] = start;
        backId[end] = id;
      }
    };
    for (let i = 0; i < n; i++) {
      const here = best[i]!;
      let coveredSingle = false;
      let s = '';
      let bytes = 0;
      for (let len = 1; len <= this.maxPieceChars && i + len <= n; len++) {
        const c = chars[i + len - 1]!;
        s += c;
        bytes += utf8Length(c);
        const id = this.lookup.get(s);
        if (id === undefined) continue;
        if (len === 1) coveredSingle = true;
        const p = this.pieces[id]!;
        const score = p.type === PieceType.UserDefined ? Math.fround(bytes * this.userDefinedUnit) - 0.1 : p.score;
        consider(i, i + len, score + here, id);
      }
      if (!coveredSingle) consider(i, i + 1, Math.fround(this.unkScore + here), -1);
    }
    const path: Step[] = [];
    for (let end = n; end > 0; end = from[end]!) {
      path.push({ id: backId[end]!, surface: chars.slice(from[end]!, end).join('') });
    }
    path.reverse();
    const out: Step[] = [];
    for (const step of path) {
      if (step.id >= 0) out.push(step);
      else if (this.byteFallback) {
        for (const b of new TextEncoder().encode(step.surface)) out.push({ id: this.byteIds[b]!, surface: step.surface });
      } else if (out.length > 0 && out[out.length - 1]!.id === this.unkId) {
        out[out.length - 1]!.surface += step.surface; // the reference merges a run of unknown characters
      } else out.push({ id: this.unkId, surface: step.surface });
    }
    return out;
  }

  /**
   * Ids → text as the reference decodes: control pieces vanish, `<unk>` becomes the model's unknown surface (" ⁇ "),
   * ▁ becomes a space. While nothing has been written, a piece loses a leading ▁: only the first such ▁ (the dummy
   * prefix) when the model keeps extra whitespace, every one when it removes extra whitespace, none when it does
   * neither. A run of byte pieces is read as UTF-8, one U+FFFD per invalid byte.
   */
  decode(ids: readonly number[]): string {
    const { addDummyPrefix, removeExtraWhitespaces } = this.normalizer;
    let stripMark = addDummyPrefix || removeExtraWhitespaces;
    let text = '';
    let bytes: number[] = [];
    for (const id of ids) {
      const p = this.pieces[id];
      if (!p) throw new RangeError(`token id ${id} out of range`);
      if (p.type === PieceType.Byte) {
        bytes.push(parseInt(p.piece.slice(3, 5), 16));
        continue;
      }
      text += decodeUtf8Bytes(bytes);
      bytes = [];
      if (p.type === PieceType.Control) continue;
      if (p.type === PieceType.Unknown) {
        text += this.unkSurface;
        continue;
      }
      let piece = p.piece;
      if (stripMark && text === '' && piece.startsWith(WHITESPACE_MARK)) {
        piece = piece.slice(1);
        stripMark = removeExtraWhitespaces;
      }
      text += piece.replaceAll(WHITESPACE_MARK, ' ');
    }
    return text + decodeUtf8Bytes(bytes);
  }
}

/** UTF-8 by the reference's rules: shortest form, no surrogates, at most U+10FFFF; else U+FFFD for one byte. */
function decodeUtf8Bytes(b: readonly number[]): string {
  let out = '';
  const trail = (k: number) => ((b[k] ?? 0) & 0xc0) === 0x80;
  const valid = (cp: number) => cp < 0xd800 || (cp >= 0xe000 && cp <= 0x10ffff);
  for (let i = 0; i < b.length;) {
    const c0 = b[i]!;
    const left = b.length - i;
    let cp = 0xfffd;
    let len = 1;
    if (c0 < 0x80) cp = c0;
    else if (left >= 2 && (c0 & 0xe0) === 0xc0 && trail(i + 1)) {
      const v = ((c0 & 0x1f) << 6) | (b[i + 1]! & 0x3f);
      if (v >= 0x80) [cp, len] = [v, 2];
    } else if (left >= 3 && (c0 & 0xf0) === 0xe0 && trail(i + 1) && trail(i + 2)) {
      const v = ((c0 & 0x0f) << 12) | ((b[i + 1]! & 0x3f) << 6) | (b[i + 2]! & 0x3f);
      if (v >= 0x800 && valid(v)) [cp, len] = [v, 3];
    } else if (left >= 4 && (c0 & 0xf8) === 0xf0 && trail(i + 1) && trail(i + 2) && trail(i + 3)) {
      const v = ((c0 & 0x07) << 18) | ((b[i + 1]! & 0x3f) << 12) | ((b[i + 2]! & 0x3f) << 6) | (b[i + 3]! & 0x3f);
      if (v >= 0x10000 && valid(v)) [cp, len] = [v, 4];
    }
    out += String.fromCodePoint(cp);
    i += len;
  }
  return out;
}
