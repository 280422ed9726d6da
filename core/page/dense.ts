// Sentence embeddings as retrieval needs them: mean pooling of a BERT-style encoder's last hidden state over the real
// (unmasked) tokens, then L2 normalisation, as sentence-transformers pools all-MiniLM-L6-v2 (docs/models.md, "Page
// embeddings"); and the similarities of a question to a page's chunks. Pure arithmetic: the model runs elsewhere.
import type { Chunk } from './chunking';

/** Cosine similarity of each chunk to the question, keyed by the chunk's text (stable across re-chunking). */
export type DenseScores = ReadonlyMap<string, number>;

/** What a chunk is embedded as: its heading path, then its text (the path says what a terse chunk is about). */
export function embeddingText(chunk: Pick<Chunk, 'path' | 'text'>): string {
  return chunk.path.length ? `${chunk.path.join(' > ')}\n${chunk.text}` : chunk.text;
}

/**
 * Mean over the tokens whose mask is 1 of a [batch, seq, dim] hidden state, each row scaled to unit length. A row with
 * no real tokens (or all-zero states) stays zero: it is similar to nothing.
 */
export function meanPoolNormalized(
  hidden: ArrayLike<number>,
  dims: readonly [number, number, number],
  mask: ArrayLike<number | bigint>,
): Float32Array[] {
  const [batch, seq, dim] = dims;
  if (hidden.length !== batch * seq * dim)
    throw new Error(`hidden state has ${hidden.length} values, not ${batch}×${seq}×${dim}`);
  if (mask.length !== batch * seq) throw new Error(`attention mask has ${mask.length} values, not ${batch}×${seq}`);
  const out: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const v = new Float32Array(dim);
    let count = 0;
    for (let t = 0; t < seq; t++) {
      if (Number(mask[b * seq + t]) === 0) continue;
      count++;
      const base = (b * seq + t) * dim;
      for (let d = 0; d < dim; d++) v[d]! += hidden[base + d]!;
    }
    let norm = 0;
    for (let d = 0; d < dim; d++) norm += v[d]! * v[d]!;
    norm = Math.sqrt(norm);
    if (count > 0 && norm > 0) for (let d = 0; d < dim; d++) v[d]! /= norm;
    out.push(v);
  }
  return out;
}

/** Dot product of two unit vectors (= their cosine similarity). */
export function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new Error(`vectors of ${a.length} and ${b.length} dimensions`);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
