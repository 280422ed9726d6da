/**
 * SentencePiece unigram tokenizer over the real `tokenizer.model` (a serialized `sentencepiece.ModelProto`).
 * Encoding = normalise → Viterbi over code points maximising the sum of piece scores; characters no piece covers
 * become UTF-8 byte pieces (`<0xAB>`) when the model has byte fallback, else one merged `<unk>`.
 *
 * Field numbers follow sentencepiece_model.proto: ModelProto{pieces=1, trainer_spec=2, normalizer_spec=3},
 * SentencePiece{piece=1, score=2, type=3}, TrainerSpec{model_type=3, byte_fallback=35, unk_id=40, bos_id=41,
 * eos_id=42, pad_id=43}, NormalizerSpec{name=1, add_dummy_prefix=3, remove_extra_whitespaces=4, escape_whitespaces=5}.
 *
 * Known approximation: the model's `precompiled_charsmap` (a compiled NFKC table) is not interpreted; when the
 * normaliser name mentions NFKC we apply `String.prototype.normalize('NFKC')`, which agrees on ordinary text.
 */
import { asBytes, asFloat, asInt, asString, readFields, ProtobufError } from './protobuf-reader';

export const PieceType = { Normal: 1, Unknown: 2, Control: 3, UserDefined: 4, Unused: 5, Byte: 6 } as const;
export type PieceType = (typeof PieceType)[keyof typeof PieceType];

export interface Piece {
  piece: string;
  score: number;
  type: PieceType;
}

export interface NormalizerSpec {
  name: string;
  addDummyPrefix: boolean;
  removeExtraWhitespaces: boolean;
  escapeWhitespaces: boolean;
}

export const WHITESPACE_MARK = '\u2581'; // ▁
/** SentencePiece scores an unknown character this far below the lowest piece score (kUnkPenalty). */
const UNK_PENALTY = 10;

export class TokenizerModelError extends Error {
  override name = 'TokenizerModelError';
}

export class SentencePieceTokenizer {
  readonly pieces: readonly Piece[];
  readonly normalizer: NormalizerSpec;
  readonly unkId: number;
  readonly bosId: number;
  readonly eosId: number;
  readonly byteFallback: boolean;
  private readonly lookup = new Map<string, number>();
  private readonly byteIds = new Array<number>(256).fill(-1);
  private readonly maxPieceChars: number;
  private readonly unkScore: number;

  constructor(
    pieces: Piece[],
    normalizer: NormalizerSpec,
    opts: { unkId: number; bosId: number; eosId: number; byteFallback: boolean },
  ) {
    if (pieces.length === 0) throw new TokenizerModelError('tokenizer has no pieces');
    this.pieces = pieces;
    this.normalizer = normalizer;
    this.unkId = opts.unkId;
    this.bosId = opts.bosId;
    this.eosId = opts.eosId;
    let maxLen = 1;
    let minScore = Infinity;
    pieces.forEach((p, id) => {
      if (p.type === PieceType.Normal || p.type === PieceType.UserDefined) {
        if (!this.lookup.has(p.piece)) this.lookup.set(p.piece, id);
        maxLen = Math.max(maxLen, [...p.piece].length);
        minScore = Math.min(minScore, p.score);
      } else if (p.type === PieceType.Byte) {
        const m = /^<0x([0-9A-Fa-f]{2})>$/.exec(p.piece);
        if (m) this.byteIds[parseInt(m[1]!, 16)] = id;
      }
    });
    this.byteFallback = opts.byteFallback && this.byteIds.every((id) => id >= 0);
    this.maxPieceChars = maxLen;
    this.unkScore = (Number.isFinite(minScore) ? minScore : 0) - UNK_PENALTY;
    if (this.unkId < 0 || this.unkId >= pieces.length || pieces[this.unkId]!.type !== PieceType.Unknown) {
      throw new TokenizerModelError(`unk_id ${this.unkId} is not an <unk> piece`);
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
      };
      const trainer = { modelType: 1, byteFallback: false, unkId: 0, bosId: 1, eosId: 2 };
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
            else if (tf.field === 35) trainer.byteFallback = asInt(tf.data) !== 0;
            else if (tf.field === 40) trainer.unkId = asInt(tf.data);
            else if (tf.field === 41) trainer.bosId = asInt(tf.data);
            else if (tf.field === 42) trainer.eosId = asInt(tf.data);
          }
        } else if (f.field === 3) {
          for (const nf of readFields(asBytes(f.data))) {
            if (nf.field === 1) normalizer.name = asString(nf.data);
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

  /** Text → the string the lattice runs over (spaces as ▁, dummy prefix, collapsed whitespace). */
  normalize(text: string): string {
    let s = /nfkc/i.test(this.normalizer.name) ? text.normalize('NFKC') : text;
    if (this.normalizer.removeExtraWhitespaces) s = s.replace(/[ \t\n\r]+/g, ' ').trim();
    else s = s.replace(/[\t\n\r]/g, ' ');
    if (s.length === 0) return '';
    if (this.normalizer.addDummyPrefix) s = ' ' + s;
    if (this.normalizer.escapeWhitespaces) s = s.replace(/ /g, WHITESPACE_MARK);
    return s;
  }

  encode(text: string): number[] {
    return this.segment(this.normalize(text)).map((s) => s.id);
  }

  encodePieces(text: string): string[] {
    return this.segment(this.normalize(text)).map((s) => this.pieces[s.id]!.piece);
  }

  /** Viterbi best path; each step is either a vocabulary piece or one uncovered character. */
  private segment(normalized: string): { id: number; surface: string }[] {
    const chars = [...normalized];
    const n = chars.length;
    const best = new Float64Array(n + 1).fill(-Infinity);
    const backLen = new Int32Array(n + 1);
    const backId = new Int32Array(n + 1).fill(-1); // -1 = unknown character
    best[0] = 0;
    for (let i = 0; i < n; i++) {
      if (best[i] === -Infinity) continue;
      let coveredSingle = false;
      let s = '';
      for (let len = 1; len <= this.maxPieceChars && i + len <= n; len++) {
        s += chars[i + len - 1];
        const id = this.lookup.get(s);
        if (id === undefined) continue;
        if (len === 1) coveredSingle = true;
        const score = best[i]! + this.pieces[id]!.score;
        if (score > best[i + len]!) {
          best[i + len] = score;
          backLen[i + len] = len;
          backId[i + len] = id;
        }
      }
      if (!coveredSingle) {
        const score = best[i]! + this.unkScore;
        if (score > best[i + 1]!) {
          best[i + 1] = score;
          backLen[i + 1] = 1;
          backId[i + 1] = -1;
        }
      }
    }
    const path: { id: number; surface: string }[] = [];
    for (let end = n; end > 0; end -= backLen[end]!) {
      path.push({ id: backId[end]!, surface: chars.slice(end - backLen[end]!, end).join('') });
    }
    path.reverse();
    const out: { id: number; surface: string }[] = [];
    for (const step of path) {
      if (step.id >= 0) out.push(step);
      else if (this.byteFallback) {
        for (const b of new TextEncoder().encode(step.surface)) out.push({ id: this.byteIds[b]!, surface: step.surface });
      } else if (out.length > 0 && out[out.length - 1]!.id === this.unkId) {
        out[out.length - 1]!.surface += step.surface; // SentencePiece merges a run of unknown characters
      } else out.push({ id: this.unkId, surface: step.surface });
    }
    return out;
  }

  /** Ids → text: pieces joined, ▁ back to spaces, byte pieces re-assembled as UTF-8; control pieces dropped. */
  decode(ids: readonly number[]): string {
    let text = '';
    let bytes: number[] = [];
    const flush = () => {
      if (bytes.length) text += new TextDecoder().decode(new Uint8Array(bytes));
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
