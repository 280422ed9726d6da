/**
 * Draft-verified decoding for the speech decoder (docs/turn-taking.md, "ASR drafts"). An earlier transcript of the
 * same growing clip is fed as the decoder's prompt; one decoder pass over it yields a prediction per position, and a
 * draft token is kept only where it is the decoder's own greedy choice. So the result is what greedy decoding from
 * the start would give, with one pass for the whole verified prefix instead of one step per token.
 */
import { logSoftmaxAt } from './log-softmax';

export interface DraftVerdict {
  /** Leading draft tokens the decoder itself would have chosen. */
  accepted: number;
  /** The decoder's choice where the draft first disagrees (null when the whole draft was accepted). */
  correction: number | null;
  /** Log-probabilities of the accepted tokens, then of the correction when there is one. */
  logProbs: number[];
}

function argmaxAndLogProb(row: Float32Array): { best: number; logProb: number } {
  let best = 0;
  for (let i = 1; i < row.length; i++) if (row[i]! > row[best]!) best = i;
  return { best, logProb: logSoftmaxAt(row, best, row[best]!) };
}

/**
 * Checks `draft` against the logits of one decoder pass over `[start, ...draft]`: `logits` holds one row of `vocab`
 * scores per prompt position, and row i predicts the token at position i + 1, i.e. draft[i].
 */
export function verifyDraft(logits: Float32Array, vocab: number, draft: readonly number[]): DraftVerdict {
  const logProbs: number[] = [];
  for (let i = 0; i < draft.length; i++) {
    const row = logits.subarray(i * vocab, (i + 1) * vocab);
    const { best, logProb } = argmaxAndLogProb(row);
    if (best !== draft[i]) return { accepted: i, correction: best, logProbs: [...logProbs, logProb] };
    logProbs.push(logProb);
  }
  return { accepted: draft.length, correction: null, logProbs };
}
