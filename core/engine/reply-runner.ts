/**
 * One assistant reply: pulls LLM deltas, cuts them into sentences, sanitises them, guards against loops and hands
 * each sentence to `speak` in order. Pull-based: the next delta is requested only after the previous sentence was
 * handed over, so LLM and TTS alternate instead of fighting for the GPU.
 *
 * A reply can start "held" (speculative, before the endpoint is confirmed): it generates up to its first sentence
 * and waits; `release()` lets it speak, `signal` abort discards it unheard.
 */
import { SentenceChunker } from '../text/sentence-chunker';
import { isSpeakable, sanitizeForSpeech } from '../text/speech-sanitizer';
import { DegeneracyGuard } from '../text/transcript-quality';
import { LINES } from './lines';
import type { Clock, SpeakMeta, TurnEventOf, TurnStage } from './types';
import { isAbortError } from './types';

export type ReplyOutcome = 'completed' | 'aborted' | 'degenerate' | 'failed';

export interface ReplyHooks {
  /** A stage of the reply's turn (first token, each sentence handed to TTS, degenerate). */
  stage<S extends TurnStage>(stage: S, fields: Omit<TurnEventOf<S>, 'type' | 'stage' | 'turnId' | 'at'>): void;
  /** Streaming caption of what the assistant says (sanitised sentences as they are handed to TTS). */
  caption(text: string, final: boolean): void;
  /** Any sign of life; feeds the watchdog. */
  progress(): void;
  /** A sentence was synthesised and queued for playback: audio is pending until playback reports `ended`. */
  queued(): void;
}

export class ReplyRunner {
  private releaseHeld: (() => void) | null = null;
  private readonly heldGate: Promise<void>;
  private spokenParts: string[] = [];
  private index = 0;
  firstSpeakAt: number | null = null;
  readonly done: Promise<ReplyOutcome>;

  constructor(
    private readonly source: AsyncIterable<string>,
    private readonly speak: (sentence: string, signal: AbortSignal, meta: SpeakMeta) => Promise<void>,
    private readonly turnId: string,
    private readonly signal: AbortSignal,
    private readonly clock: Clock,
    private readonly hooks: ReplyHooks,
    held = false,
  ) {
    this.heldGate = held ? new Promise<void>((resolve) => (this.releaseHeld = resolve)) : Promise.resolve();
    this.done = this.run();
  }

  /** Text handed to TTS so far (what the user has heard or is about to hear). */
  get spoken(): string {
    return this.spokenParts.join(' ');
  }

  get held(): boolean {
    return this.releaseHeld !== null;
  }

  release(): void {
    this.releaseHeld?.();
    this.releaseHeld = null;
  }

  private async run(): Promise<ReplyOutcome> {
    const chunker = new SentenceChunker();
    const guard = new DegeneracyGuard();
    let firstDelta = true;
    try {
      for await (const delta of this.source) {
        if (this.signal.aborted) return 'aborted';
        if (firstDelta) {
          this.hooks.stage('first-token', {});
          firstDelta = false;
        }
        this.hooks.progress();
        for (const chunk of chunker.push(delta)) {
          if (!(await this.deliver(chunk, guard))) return this.degenerate();
        }
      }
      for (const chunk of chunker.flush()) {
        if (!(await this.deliver(chunk, guard))) return this.degenerate();
      }
      if (this.signal.aborted) return 'aborted';
      // A reply that produced nothing speakable (only markup, or nothing at all): do not leave the user in silence.
      if (this.spokenParts.length === 0) return this.degenerate();
      this.hooks.caption(this.spoken, true);
      return 'completed';
    } catch (error) {
      if (this.signal.aborted || isAbortError(error)) return 'aborted';
      return 'failed';
    }
  }

  /** Returns false when the sentence would make the reply degenerate. */
  private async deliver(chunk: string, guard: DegeneracyGuard): Promise<boolean> {
    const sentence = sanitizeForSpeech(chunk);
    if (!isSpeakable(sentence)) return true;
    if (!guard.accept(sentence)) return false;
    await this.heldGate;
    if (this.signal.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
    const meta: SpeakMeta = { turnId: this.turnId, index: this.index++ };
    if (this.firstSpeakAt === null) {
      this.firstSpeakAt = this.clock.now();
      this.hooks.stage('first-speak', {});
    }
    this.hooks.stage('speak', { index: meta.index, chars: sentence.length });
    this.spokenParts.push(sentence);
    this.hooks.caption(this.spoken, false);
    await this.speak(sentence, this.signal, meta);
    this.hooks.queued();
    this.hooks.progress();
    return true;
  }

  private async degenerate(): Promise<ReplyOutcome> {
    this.hooks.stage('degenerate', { spokenSentences: this.spokenParts.length });
    if (this.spokenParts.length === 0 && !this.signal.aborted) {
      try {
        await this.heldGate;
        const meta: SpeakMeta = { turnId: this.turnId, index: this.index++ };
        if (this.firstSpeakAt === null) {
          this.firstSpeakAt = this.clock.now();
          this.hooks.stage('first-speak', {});
        }
        this.spokenParts.push(LINES.degenerate);
        await this.speak(LINES.degenerate, this.signal, meta);
        this.hooks.queued();
      } catch {
        return 'aborted';
      }
    }
    this.hooks.caption(this.spoken, true);
    return 'degenerate';
  }
}

/** A fixed line (clarify, holding line, tool result) as a one-delta source, so it runs through the same path. */
export async function* lineSource(text: string): AsyncIterable<string> {
  yield text;
}
