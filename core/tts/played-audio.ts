/**
 * How much of a turn's audio a player has rendered, on its AudioContext clock. Each chunk starts when the previous one
 * ends, or when it is handed over if the player had drained by then (TTS slower than real time: the player plays
 * silence meanwhile, which is not the turn's audio). At a stop, the chunks' played parts add up to what the user
 * heard; samples already rendered reach the speakers even after the stop (docs/interruptions.md).
 */
export class PlayedAudio {
  /** Runs of back-to-back audio on the player's clock, in seconds. */
  private runs: { start: number; end: number }[] = [];

  /** A chunk of `durationS` seconds was handed to the player when its clock read `atS`. */
  queue(atS: number, durationS: number): void {
    const last = this.runs.at(-1);
    if (last && atS <= last.end) last.end += durationS;
    else this.runs.push({ start: atS, end: atS + durationS });
  }

  /** Milliseconds of the queued audio rendered by the time the player's clock reads `nowS`. */
  playedMs(nowS: number): number {
    let s = 0;
    for (const run of this.runs) s += Math.min(Math.max(0, nowS - run.start), run.end - run.start);
    return s * 1000;
  }

  reset(): void {
    this.runs = [];
  }
}
