/**
 * Confidence for a transcript. transformers.js 4.3.2 accumulates per-sequence log-probs inside generate() but does not
 * return them (`scores` is a TODO there), and the ASR pipeline returns only text. So we append a LogitsProcessor that
 * sees each step's final logits: at step t+1 the ids include the token chosen at step t, so its log-softmax is read
 * from the row kept from step t; the last token is resolved from the output ids by finish().
 */
import { LogitsProcessor, type Tensor } from '@huggingface/transformers';
import { logSoftmaxAt } from './log-softmax';

export class TokenLogProbRecorder extends LogitsProcessor {
  private lastRow: Float32Array | null = null;
  readonly logProbs: number[] = [];

  override _call(inputIds: bigint[][], logits: Tensor): Tensor {
    const ids = inputIds[0];
    if (this.lastRow && ids && ids.length > 0) this.logProbs.push(logSoftmaxAt(this.lastRow, Number(ids[ids.length - 1])));
    const vocab = logits.dims[logits.dims.length - 1]!;
    // Batch row 0 only: the runtime transcribes one segment at a time.
    this.lastRow = Float32Array.from((logits.data as Float32Array).subarray(0, vocab));
    return logits;
  }

  /** Resolves the final chosen token (no later step saw it) and returns mean log-prob, or null with no tokens. */
  finish(lastTokenId: number | null): number | null {
    if (this.lastRow && lastTokenId !== null) this.logProbs.push(logSoftmaxAt(this.lastRow, lastTokenId));
    this.lastRow = null;
    if (this.logProbs.length === 0) return null;
    return this.logProbs.reduce((a, b) => a + b, 0) / this.logProbs.length;
  }
}
