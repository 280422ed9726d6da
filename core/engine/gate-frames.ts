import type { BargeDecision } from './barge-detector';
import type { TrackGate } from './barge-tracks';

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
  /**
   * Each track's measured floor (−1 while it has none) and 1 when it describes this reply's echo (`floorHolds`: a
   * joint run counts only while both do).
   */
  'floor',
  'floorHolds',
  'rawFloor',
  'rawFloorHolds',
  /** How far this reply's echo has outgrown each floor (`ResidualFloor.outgrowth`: over 1, the floor does not hold). */
  'outgrowth',
  'rawOutgrowth',
] as const;

export type GateFrameRow = number[];

const DECISIONS = ['none', 'duck', 'release', 'long', 'barge'] as const;

/** The decision's code in a row. */
export function decisionCode(kind: (typeof DECISIONS)[number]): number {
  return DECISIONS.indexOf(kind);
}

/** A value that was not measured (no VAD on that track, a gate still calibrating): −1, as JSON has no NaN. */
const orNone = (v: number) => (Number.isFinite(v) ? v : -1);

/**
 * One frame's row: captured at `at`, judged by the processed gate at `processed`'s level and P(speech), and by the
 * unprocessed gate on `raw` when that track had its own VAD; `decision`, what the two together decided.
 */
export function gateFrameRow(
  at: number,
  processed: { rms: number; prob: number },
  gate: TrackGate,
  raw: { rms: number; prob: number | null } | undefined,
  rawGate: TrackGate,
  decision: BargeDecision['kind'],
): GateFrameRow {
  return [
    at,
    processed.prob,
    processed.rms,
    orNone(gate.lastGate),
    gate.candidate ? 1 : 0,
    raw?.prob ?? -1,
    raw?.rms ?? -1,
    raw ? orNone(rawGate.lastGate) : -1,
    raw && rawGate.candidate ? 1 : 0,
    gate.echo.expected(at),
    raw ? rawGate.echo.expected(at) : 0,
    gate.expectedPlayback(at),
    decisionCode(decision),
    gate.residual.floor ?? -1,
    gate.floorHolds ? 1 : 0,
    raw ? (rawGate.residual.floor ?? -1) : -1,
    raw && rawGate.floorHolds ? 1 : 0,
    gate.residual.outgrowth,
    raw ? rawGate.residual.outgrowth : -1,
  ];
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
