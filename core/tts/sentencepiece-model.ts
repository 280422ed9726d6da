/**
 * Reads a SentencePiece `tokenizer.model` (a serialized `sentencepiece.ModelProto`) into plain data for
 * sentencepiece.ts. Field numbers follow sentencepiece_model.proto: ModelProto{pieces=1, trainer_spec=2,
 * normalizer_spec=3}, SentencePiece{piece=1, score=2, type=3}, TrainerSpec{model_type=3,
 * treat_whitespace_as_suffix=24, byte_fallback=35, unk_id=40, bos_id=41, eos_id=42, unk_surface=44},
 * NormalizerSpec{name=1, precompiled_charsmap=2, add_dummy_prefix=3, remove_extra_whitespaces=4,
 * escape_whitespaces=5}. Defaults are the proto's.
 */
import { asBytes, asFloat, asInt, asString, readFields, ProtobufError } from './protobuf-reader';
import type { NormalizerSpec } from './sentencepiece-normalizer';

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
  /** What decoding writes for `<unk>`. */
  unkSurface?: string;
}

export interface ModelProtoData {
  pieces: Piece[];
  normalizer: NormalizerSpec;
  trainer: TokenizerOptions & { modelType: number };
}

export class TokenizerModelError extends Error {
  override name = 'TokenizerModelError';
}

/** Throws TokenizerModelError for bytes that are not a ModelProto. */
export function readModelProto(bytes: Uint8Array): ModelProtoData {
  try {
    const pieces: Piece[] = [];
    const normalizer: NormalizerSpec = {
      name: '',
      addDummyPrefix: true,
      removeExtraWhitespaces: true,
      escapeWhitespaces: true,
      precompiledCharsmap: new Uint8Array(0),
    };
    const trainer = {
      modelType: 1,
      byteFallback: false,
      unkId: 0,
      bosId: 1,
      eosId: 2,
      treatWhitespaceAsSuffix: false,
      unkSurface: ' \u2047 ',
    };
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
          else if (tf.field === 44) trainer.unkSurface = asString(tf.data);
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
    return { pieces, normalizer, trainer };
  } catch (e) {
    if (e instanceof ProtobufError || e instanceof TypeError) {
      throw new TokenizerModelError(`not a tokenizer.model: ${e.message}`);
    }
    throw e;
  }
}
