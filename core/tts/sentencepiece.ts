/**
 * SentencePiece unigram tokenizer over a real `tokenizer.model` (a serialized `sentencepiece.ModelProto`), giving
 * the reference C++ library's ids exactly: tests/unit/tts/sentencepiece-reference.test.ts encodes thousands of
 * varied strings with this class and with the library compiled to WebAssembly, over models the reference trainer
 * made, and requires zero differences (docs/tts.md, "Reference comparison").
 *
 * Encoding = normalise (sentencepiece-normalizer.ts: the model's `precompiled_charsmap`, whitespace rules, ▁) →
 * Viterbi over code points maximising the sum of piece scores → characters no piece covers become UTF-8 byte pieces
 * (`<0xAB>`) with byte fallback, else one merged `<unk>` per run. The Viterbi keeps the reference's arithmetic:
 * path scores are stored as float32, a piece's candidate is compared before rounding, an unknown character's
 * candidate after, and ties keep the earlier candidate; user-defined pieces score `bytes × max(normal scores,
 * FLT_MIN) − 0.1` so they always win, and unused pieces never match. Over long runs of repeated punctuation the
 * float32 rounding decides between equal-looking paths, so float64 sums give different ids.
 *
 * Field numbers follow sentencepiece_model.proto: ModelProto{pieces=1, trainer_spec=2, normalizer_spec=3},
 * SentencePiece{piece=1, score=2, type=3}, TrainerSpec{model_type=3, treat_whitespace_as_suffix=24,
 * byte_fallback=35, unk_id=40, bos_id=41, eos_id=42}, NormalizerSpec{name=1, precompiled_charsmap=2,
 * add_dummy_prefix=3, remove_extra_whitespaces=4, escape_whitespaces=5}.
 */
import { asBytes, asFloat, asInt, asString, readFields, ProtobufError } from './protobuf-reader';
import { CharsMapError } from './sentencepiece-charsmap';
import { SentencePieceNormalizer, WHITESPACE_MARK, type NormalizerSpec } from './sentencepiece-normalizer';

export { WHITESPACE_MARK, type NormalizerSpec };

export const PieceType = { Normal: 1, Unknown: 2, Control: 3, UserDefined: 4, Unused: 5, Byte: 6 } as const;
export type PieceType = (typeof PieceType)[keyof typeof PieceType];

export interface Piece {
  piece: string;
  score: number;
  type: PieceType;
}

export interface TokenizerOptions {
  unkId: number;
  bosId: number;
  eosId: number;
  byteFallback: boolean;
  treatWhitespaceAsSuffix?: boolean;
}

/** The reference scores an unknown character this far below the lowest normal piece (kUnkPenalty). */
const UNK_PENALTY = 10;
/** The reference starts its running max/min of normal scores at FLT_MIN / FLT_MAX (float32 limits). */
const FLT_MIN = 1.1754943508222875e-38;
const FLT_MAX = 3.4028234663852886e38;

export class TokenizerModelError extends Error {
  override name = 'TokenizerModelError';
}

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
    try {
      const pieces: Piece[] = [];
      const normalizer: NormalizerSpec = {
        name: '',
        addDummyPrefix: true,
        removeExtraWhitespaces: true,
        escapeWhitespaces: true,
        precompiledCharsmap: new Uint8Array(0),
      };
      const trainer = { modelType: 1, byteFallback: false, unkId: 0, bosId: 1, eosId: 2, treatWhitespaceAsSuffix: false };
      for (const f of readFields(bytes)) {
        if (f.field === 1) {
          const p: Piece = { piece: '', score: 0, type: PieceType.Normal };
          for (const pf of readFields(asBytes(f.data))) {
            if (pf.field === 1) p.piece = asString(pf.data);
            else if (pf.field === 2) p.score = asFloat(pf.data);
            else if (pf.field === 3) p.type = asInt(pf.data) as PieceType;
          }
          pieces.push(p);
        } else if (f.field === 2) {
          for (const tf of readFields(asBytes(f.data))) {
            if (tf.field === 3) trainer.modelType = asInt(tf.data);
            else if (tf.field === 24) trainer.treatWhitespaceAsSuffix = asInt(tf.data) !== 0;
            else if (tf.field === 35) trainer.byteFallback = asInt(tf.data) !== 0;
            else if (tf.field === 40) trainer.unkId = asInt(tf.data);
            else if (tf.field === 41) trainer.bosId = asInt(tf.data);
            else if (tf.field === 42) trainer.eosId = asInt(tf.data);
          }
        } else if (f.field === 3) {
          for (const nf of readFields(asBytes(f.data))) {
            if (nf.field === 1) normalizer.name = asString(nf.data);
            else if (nf.field === 2) normalizer.precompiledCharsmap = asBytes(nf.data);
            else if (nf.field === 3) normalizer.addDummyPrefix = asInt(nf.data) !== 0;
            else if (nf.field === 4) normalizer.removeExtraWhitespaces = asInt(nf.data) !== 0;
            else if (nf.field === 5) normalizer.escapeWhitespaces = asInt(nf.data) !== 0;
          }
        }
      }
      if (trainer.modelType !== 1) throw new TokenizerModelError(`model_type ${trainer.modelType} is not unigram (1)`);
      return new SentencePieceTokenizer(pieces, normalizer, trainer);
    } catch (e) {
      if (e instanceof TokenizerModelError) throw e;
      if (e instanceof ProtobufError || e instanceof TypeError)
        throw new TokenizerModelError(`not a tokenizer.model: ${e.message}`);
      throw e;
    }
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

  /** Ids → text: pieces joined, ▁ back to spaces, byte pieces re-assembled as UTF-8; control pieces dropped. */
  decode(ids: readonly number[]): string {
    let text = '';
    let bytes: number[] = [];
    const flush = () => {
      if (bytes.length) text += new TextDecoder('utf-8', { ignoreBOM: true }).decode(new Uint8Array(bytes));
      bytes = [];
    };
    for (const id of ids) {
      const p = this.pieces[id];
      if (!p) throw new RangeError(`token id ${id} out of range`);
      if (p.type === PieceType.Byte) {
        bytes.push(parseInt(p.piece.slice(3, 5), 16));
        continue;
      }
      flush();
      if (p.type === PieceType.Control) continue;
      text += p.type === PieceType.Unknown ? ' \u2047 ' : p.piece;
    }
    flush();
    text = text.replace(new RegExp(WHITESPACE_MARK, 'g'), ' ');
    return this.normalizer.addDummyPrefix && text.startsWith(' ') ? text.slice(1) : text;
  }
}
