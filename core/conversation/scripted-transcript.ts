// The scripted recogniser stand-in (test builds only; docs/security.md, "Test hooks and the release build"). The
// room rig's fixture recogniser writes letters no language has for whatever it hears, so every burst over the reply
// reads as words that ask for the floor, and whether a listener's "mm-hm" is let go cannot be measured with it.
// While a script is set, each transcription the conversation asks for still runs the recogniser (so the time it takes
// is real) and then reports the scripted text: what a real recogniser would write for the phrase the rig plays.
// docs/echo.md, "Backchannels in the room".

export class TranscriptScript {
  private text: string | null = null;
  private until = -Infinity;
  /** How many transcriptions were given the scripted text since it was set (the bench reports it). */
  used = 0;

  /** `text` for every transcription asked for in the next `forMs` (from `now`); null removes the script. */
  set(text: string | null, now: number, forMs: number): void {
    this.text = text;
    this.until = text === null ? -Infinity : now + forMs;
    this.used = 0;
  }

  /** The text to report instead of the recogniser's at `now`, or the recogniser's own when no script is active. */
  heard(recognised: string, now: number): string {
    if (this.text === null || now > this.until) return recognised;
    this.used += 1;
    return this.text;
  }
}
