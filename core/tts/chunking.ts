/**
 * Splits text into chunks of at most `maxTokens` tokens (upstream `split_into_best_sentences`, pocket-tts.md §4.2):
 * cut after sentence-end tokens, sub-split an over-long sentence at , ; :, and only as a last resort at a word
 * boundary; then pack whole sentences greedily. Every chunk restarts from the voice state, so a cut mid-sentence
 * sounds like a full stop — hence sentences are never split unless they alone exceed the budget.
 */
import { framesAfterEos, prepareText, type TextPrepOptions } from './text-prep';

export interface ChunkTokenizer {
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  readonly pieces: readonly { piece: string }[];
}

export interface TextChunk {
  /** Prepared text (capitalised, final period, padding) that was tokenised. */
  text: string;
  ids: number[];
  framesAfterEos: number;
}

const SENTENCE_END = /^\u2581?(?:[.!?\u2026]+)$/;
const CLAUSE_END = /^\u2581?[,;:]+$/;

function pieceOf(tok: ChunkTokenizer, id: number): string {
  return tok.pieces[id]?.piece ?? '';
}

/** Splits ids into runs that end after a run of boundary tokens. */
function splitAfter(tok: ChunkTokenizer, ids: number[], boundary: RegExp): number[][] {
  const runs: number[][] = [];
  let current: number[] = [];
  let prevWasBoundary = false;
  for (const id of ids) {
    const isBoundary = boundary.test(pieceOf(tok, id));
    if (!isBoundary && prevWasBoundary && current.length > 0) {
      runs.push(current);
      current = [];
    }
    current.push(id);
    prevWasBoundary = isBoundary;
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

/** Last resort: cut at word starts (pieces beginning with ▁), or mid-word if one word alone is too long. */
function splitAtWords(tok: ChunkTokenizer, ids: number[], max: number): number[][] {
  const out: number[][] = [];
  let current: number[] = [];
  let word: number[] = [];
  const flushWord = () => {
    if (current.length + word.length > max && current.length > 0) {
      out.push(current);
      current = [];
    }
    while (word.length > max) {
      out.push(word.slice(0, max));
      word = word.slice(max);
    }
    current.push(...word);
    word = [];
  };
  for (const id of ids) {
    if (pieceOf(tok, id).startsWith('\u2581') && word.length > 0) flushWord();
    word.push(id);
  }
  flushWord();
  if (current.length > 0) out.push(current);
  return out;
}

/** Token runs of ≤ max tokens, each a sentence, a clause, or a word-bounded piece. */
function boundedPieces(tok: ChunkTokenizer, ids: number[], max: number): number[][] {
  const out: number[][] = [];
  for (const sentence of splitAfter(tok, ids, SENTENCE_END)) {
    if (sentence.length <= max) {
      out.push(sentence);
      continue;
    }
    for (const clause of splitAfter(tok, sentence, CLAUSE_END)) {
      if (clause.length <= max) out.push(clause);
      else out.push(...splitAtWords(tok, clause, max));
    }
  }
  return out;
}

/** Raw text chunks (before per-chunk preparation), each ≤ maxTokens when tokenised on its own. */
export function splitIntoChunkTexts(tok: ChunkTokenizer, text: string, maxTokens: number): string[] {
  const ids = tok.encode(text.trim());
  const chunks: string[] = [];
  let current: number[] = [];
  for (const piece of boundedPieces(tok, ids, maxTokens)) {
    if (current.length > 0 && current.length + piece.length > maxTokens) {
      chunks.push(tok.decode(current).trim());
      current = [];
    }
    current = current.concat(piece);
  }
  if (current.length > 0) chunks.push(tok.decode(current).trim());
  return chunks.filter((c) => c.length > 0);
}

/**
 * Chunks ready for the model: each prepared (capitalised, period, padding) and tokenised. Preparation can add a
 * token or two (the final period, capitalisation changing the segmentation), so a chunk that grows past the budget
 * is cut again at word boundaries — the ≤ maxTokens invariant holds for what the text conditioner sees.
 */
export function planChunks(
  tok: ChunkTokenizer,
  text: string,
  opts: TextPrepOptions & { maxTokens: number; modelRecommendedFramesAfterEos: number | null },
): TextChunk[] {
  const out: TextChunk[] = [];
  for (const raw of splitIntoChunkTexts(tok, text, opts.maxTokens)) {
    const prepared = prepareText(raw, opts);
    const after = framesAfterEos(prepared.framesAfterEosGuess, opts.modelRecommendedFramesAfterEos);
    const ids = tok.encode(prepared.text);
    if (ids.length <= opts.maxTokens) {
      out.push({ text: prepared.text, ids, framesAfterEos: after });
      continue;
    }
    for (const part of splitAtWords(tok, ids, opts.maxTokens)) {
      out.push({ text: tok.decode(part), ids: part, framesAfterEos: after });
    }
  }
  return out;
}
