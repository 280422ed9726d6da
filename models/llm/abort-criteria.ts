/**
 * Turns an AbortSignal into a transformers.js StoppingCriteria. generate() checks stopping criteria after every
 * sampled token, so an abort (barge-in) stops within one decoding step and still returns the tokens so far.
 */
import { StoppingCriteria } from '@huggingface/transformers';

export class AbortSignalCriteria extends StoppingCriteria {
  constructor(private readonly signal: AbortSignal) {
    super();
  }

  override _call(inputIds: number[][]): boolean[] {
    return inputIds.map(() => this.signal.aborted);
  }
}
