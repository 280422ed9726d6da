/**
 * Every microphone frame during a reply as both barge gates judged it, kept only while `traceGateFrames` is on (the
 * room sweep sets it; docs/benchmarks.md, "The gates frame by frame"). The sweep's per-reply summaries say a voice
 * was missed, not which rule would have caught it; with these rows a rule can be tried on a whole sweep's frames
 * without running it again. Levels only: no audio, no words.
 */

/** What each row holds, in order. */
export const GATE_FRAME_COLUMNS = [
  /** Capture time (ms, the engine's clock). */
  'at',
  /** The processed track: P(speech), RMS, the gate it was judged against, 1 when it was a candidate. */
  'prob',
  'rms',
  'gate',
  'candidate',
  /** The unprocessed track, the same. −1 where a value was not measured (no VAD on that track, a gate calibrating). */
  'rawProb',
  'rawRms',
  'rawGate',
  'rawCandidate',
  /** The echo each track's path expects at this frame (0: no estimate). */
  'echo',
  'rawEcho',
  /** The loudest playback level within the echo tail. */
  'playback',
  /** The decision: 0 none, 1 duck, 2 release, 3 long, 4 barge. */
  'decision',
] as const;

export type GateFrameRow = number[];

const DECISIONS = ['none', 'duck', 'release', 'long', 'barge'] as const;

/** The decision's code in a row. */
export function decisionCode(kind: (typeof DECISIONS)[number]): number {
  return DECISIONS.indexOf(kind);
}

/** Rows since the last `take`, at most `capacity` (the oldest are dropped: a reader that never comes costs nothing more). */
export class GateFrameLog {
  private rows: GateFrameRow[] = [];

  constructor(private readonly capacity = 20_000) {}

  push(row: GateFrameRow): void {
    this.rows.push(row);
    if (this.rows.length > this.capacity) this.rows.splice(0, this.rows.length - this.capacity);
  }

  /** The rows kept so far, oldest first; the log starts empty again. */
  take(): GateFrameRow[] {
    const rows = this.rows;
    this.rows = [];
    return rows;
  }
}
