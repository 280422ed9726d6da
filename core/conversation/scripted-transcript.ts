// The scripted recogniser stand-in (test builds only; docs/security.md, "Test hooks and the release build"). The
// room rig's fixture recogniser writes letters no language has for whatever it hears, so every burst over the reply
// reads as words that ask for the floor, and whether a listener's "mm-hm" is let go cannot be measured with it.
// While a script is set, each transcription the conversation asks for still runs the recogniser (so the time it takes
// is real) and then reports the scripted text: what a real recogniser would write for the phrase the rig plays.
// docs/echo.md, "Backchannels in the room".
//
// `REPLY_WORDS` as the text stands for the reply's own words: each transcription reports the last words the reply
// gave the voice, which is what a real recogniser writes for the reply's echo (the fixture's letters are what none
// would). The room rig plays no user over a silent reply, so whatever is transcribed there is the echo.

/** The script text that reports the reply's latest words instead of a fixed phrase. */
export const REPLY_WORDS = '{reply-words}';
/** About two seconds of speech: the part of the reply an echo burst covers. */
const REPLY_WORDS_KEPT = 6;

export class TranscriptScript {
  private text: string | null = null;
  private until = -Infinity;
  private otherwise: string | null = null;
  private replyWords: string[] = [];
  /** How many transcriptions were given the scripted text since it was set (the bench reports it). */
  used = 0;

  /** A sentence the reply gave the voice; `first` starts a new reply. */
  spoke(sentence: string, first: boolean): void {
    if (first) this.replyWords = [];
    this.replyWords = [...this.replyWords, ...sentence.split(/\s+/).filter(Boolean)].slice(-REPLY_WORDS_KEPT);
  }

  /**
   * `text` for every transcription asked for in the next `forMs` (from `now`; null there: the recogniser's own), and
   * `otherwise` after that (null: the recogniser's own). `set(null, now, 0)` removes the script.
   */
  set(text: string | null, now: number, forMs: number, otherwise: string | null = null): void {
    this.text = text;
    this.until = now + forMs;
    this.otherwise = otherwise;
    this.used = 0;
  }

  /** The text to report instead of the recogniser's at `now`, or the recogniser's own when no script is active. */
  heard(recognised: string, now: number): string {
    const text = now > this.until ? this.otherwise : this.text;
    if (text === null) return recognised;
    this.used += 1;
    return text === REPLY_WORDS ? this.replyWords.join(' ') : text;
  }
}
