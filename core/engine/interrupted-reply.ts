/**
 * An interrupted reply in the history and the captions: at the cut, the text handed to TTS (all the engine knows
 * then); once the player reports how much of the turn's audio it rendered, the words the user heard, to the word
 * (docs/interruptions.md). The report comes right after the stop; nothing waits for it.
 */
import { engineTunables as T } from '../tunables';
import { heardText, type SentenceAudio } from './heard-text';
import type { HistoryMessage, PlaybackEvent } from './types';

export const INTERRUPTED_MARKER = '[interrupted]';

/** The history's words for a reply cut after `text` (possibly nothing). */
export const interruptedEntry = (text: string) => (text ? `${text} ${INTERRUPTED_MARKER}` : INTERRUPTED_MARKER);
/** The final caption of a reply cut after `text`. */
export const interruptedCaption = (text: string) => (text ? `${text} —` : '—');

export class InterruptedReply {
  private pending: { turnId: string; entry: HistoryMessage | null; spoken: string } | null = null;

  constructor(
    private readonly history: HistoryMessage[],
    private readonly sentences: ((turnId: string) => readonly SentenceAudio[]) | undefined,
    private readonly caption: (turnId: string, text: string) => void,
  ) {}

  /** The reply was cut (barge-in or stop) after `spoken` was handed to TTS; `remember`: it goes into the history. */
  cut(turnId: string, spoken: string, remember: boolean, fromPage = false): void {
    this.pending = null;
    if (!spoken) return;
    const mark = fromPage ? { fromPage: true as const } : {};
    const entry: HistoryMessage | null = remember ? { role: 'assistant', text: interruptedEntry(spoken), ...mark } : null;
    if (entry) this.history.push(entry);
    this.caption(turnId, interruptedCaption(spoken));
    this.pending = { turnId, entry, spoken };
  }

  /** The history was emptied ("Forget everything"): a late report must not bring the cut reply back. */
  forget(): void {
    this.pending = null;
  }

  /**
   * A playback event: the player's report on the cut turn turns its entry and caption into the words heard. Only the
   * stop's own end counts (`interrupted`, the turn's total): the end of a run that drained before the stop can reach
   * this document after the cut (it travels on another channel than the stop), and says less than was heard.
   */
  played(event: PlaybackEvent): void {
    const pending = this.pending;
    if (event.type !== 'ended' || !event.interrupted || event.playedMs === undefined || pending?.turnId !== event.turnId) return;
    this.pending = null;
    const sentences = this.sentences?.(event.turnId) ?? [];
    if (sentences.length === 0) return;
    const heard = heardText(sentences, event.playedMs, T.heardWordShare);
    // Never more than was handed to TTS (a sentence list that disagrees with the engine's keeps the entry as it is).
    if (!pending.spoken.startsWith(heard)) return;
    const at = pending.entry ? this.history.indexOf(pending.entry) : -1;
    if (at >= 0) this.history[at] = { ...pending.entry!, text: interruptedEntry(heard) };
    this.caption(event.turnId, interruptedCaption(heard));
  }
}
