/**
 * The end-of-turn model's question for one pause (docs/turn-taking.md). A pause is identified by when it began; the
 * answer counts only while the user is still in that pause, and a newer pause aborts the older question.
 */
import { phraseCompleteness } from '../text/phrase-completeness';
import { engineTunables as T } from '../tunables';

/**
 * The silence that ends the turn now. With the end-of-turn model's answer for this pause: at once when it says the
 * user has finished, after a long silence when it says they have not. Without one (no model, or not answered yet):
 * short after a complete-sounding speculative transcript, long after "and…/so…/um".
 */
export function endpointWindow(probability: number | null, transcript: string | undefined): number {
  if (probability !== null) return probability >= T.turnCompleteProbability ? T.turnCheckMs : T.endpointTurnIncompleteMs;
  if (transcript === undefined) return T.endpointSilenceMs;
  const kind = phraseCompleteness(transcript);
  return kind === 'complete' ? T.endpointCompleteMs : kind === 'trailing' ? T.endpointTrailingMs : T.endpointSilenceMs;
}

export type EndOfTurnStage = (pcm16k: Float32Array, signal: AbortSignal) => Promise<number>;

interface Question {
  pauseStart: number;
  controller: AbortController;
  probability: number | null;
}

export class EndOfTurnCheck {
  private question: Question | null = null;

  constructor(private readonly stage: EndOfTurnStage | undefined) {}

  /** There is an end-of-turn model to ask. */
  get enabled(): boolean {
    return this.stage !== undefined;
  }

  /** The question for the pause that began at `pauseStart` has been sent. */
  askedFor(pauseStart: number | null): boolean {
    return pauseStart !== null && this.question?.pauseStart === pauseStart;
  }

  /** P(complete) for the pause that began at `pauseStart`, once answered; null before (or for another pause). */
  answerFor(pauseStart: number | null): number | null {
    const q = this.question;
    return q && pauseStart !== null && q.pauseStart === pauseStart ? q.probability : null;
  }

  /**
   * Asks once for this pause. `onAnswer` runs only if the answer arrives while `stillThisPause()` holds; a failed or
   * aborted question is never answered (the silence rules decide then).
   */
  ask(audio: () => Float32Array, pauseStart: number | null, stillThisPause: () => boolean, onAnswer: (p: number) => void): void {
    if (!this.stage || pauseStart === null || this.question?.pauseStart === pauseStart) return;
    this.question?.controller.abort();
    const q: Question = { pauseStart, controller: new AbortController(), probability: null };
    this.question = q;
    this.stage(audio(), q.controller.signal).then(
      (probability) => {
        if (this.question !== q || q.controller.signal.aborted || !stillThisPause()) return;
        q.probability = probability;
        onAnswer(probability);
      },
      () => undefined,
    );
  }
}
