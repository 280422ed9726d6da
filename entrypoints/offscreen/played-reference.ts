import { REFERENCE_KEEP_MS, ReferenceTimeline } from '../../core/echo/reference-timeline';
import { levelHeardAt, type PlaybackMessage } from '../../core/protocol/playback';
import { matchEcho } from '../../core/engine/echo-match';

/** Test builds (`debug/played-reference`): the kept reference against the reply's audio as it was sent. */
export interface PlayedReferenceCheck {
  taken: number;
  dropped: number;
  /** Sound in the kept reference, and the time from its first block's start to its last one's end. */
  heardMs: number;
  spanMs: number;
  /** GCC-PHAT of the reference's sound against the sent audio: the peak's height and where the sound sits in it. */
  matchScore: number | null;
  atMs: number | null;
  /** Their normalised correlation at that lag (1: the same samples). */
  correlation: number | null;
}

const RATE = 16_000;

type Played = Extract<PlaybackMessage, { type: 'played' }>;

/**
 * What the speakers played, as the side panel reports it, on this document's clock: the echo canceller's reference
 * (docs/echo-canceller.md, "The reference"). A block is taken if it was heard within the time the reference keeps: a
 * panel whose thread a frame held sends its blocks seconds late, and they still say what was playing then. One heard
 * earlier, or in the future by more than output latency (clocks that disagree), is dropped.
 */
export class PlayedReference {
  readonly timeline = new ReferenceTimeline();
  /** Blocks taken and dropped since the document started (the test hook reports them). */
  taken = 0;
  dropped = 0;

  add(p: Played): void {
    const at = levelHeardAt(p, performance.timeOrigin, performance.now(), REFERENCE_KEEP_MS);
    if (at === undefined) {
      this.dropped += 1;
      return;
    }
    this.taken += 1;
    this.timeline.add(at, p.samples, p.sampleRate);
  }

  /** Test builds: the kept reference (its sound, gaps left out) against `sent`, the reply's audio at 16 kHz. */
  check(sent: Float32Array | null): PlayedReferenceCheck {
    const { startMs, endMs } = this.timeline;
    const base = { taken: this.taken, dropped: this.dropped, heardMs: 0, spanMs: 0 };
    const none = { matchScore: null, atMs: null, correlation: null };
    if (!(endMs > startMs)) return { ...base, ...none };
    const read = this.timeline.read(startMs, Math.round(((endMs - startMs) * RATE) / 1000));
    const kept = read.filter((v) => v !== 0);
    const measured = { ...base, heardMs: (kept.length * 1000) / RATE, spanMs: endMs - startMs };
    // The newest sound, as long as the sent audio: the kept seconds may begin with the previous reply's end.
    const sound = sent ? kept.subarray(Math.max(0, kept.length - sent.length)) : kept;
    const match = sent ? matchEcho(sound, sent) : null;
    if (!sent || !match) return { ...measured, ...none };
    const lag = Math.round(match.atSeconds * RATE);
    let xy = 0;
    let xx = 0;
    let yy = 0;
    for (let i = 0; i < sound.length; i++) {
      const y = sent[i + lag];
      if (y === undefined) continue;
      xy += sound[i]! * y;
      xx += sound[i]! * sound[i]!;
      yy += y * y;
    }
    const correlation = xx > 0 && yy > 0 ? xy / Math.sqrt(xx * yy) : null;
    return { ...measured, matchScore: match.score, atMs: match.atSeconds * 1000, correlation };
  }
}
