/**
 * The playback level the engine's echo path learns from (docs/echo.md): an analyser read about once per microphone
 * frame, with when it is heard (audible-onset.ts). A held reply reports silence: the analyser keeps its last window
 * while the context stands still, but the speakers are silent.
 */
import { readLevel } from './audible-onset';

/** Levels are reported at most this often (ms): about one per microphone frame (32 ms, the echo path's grid). */
export const LEVEL_EVERY_MS = 30;

export type LevelListener = (rms: number, heardAt?: number, windowAt?: number) => void;

export class LevelReporter {
  private buf = new Float32Array(512);
  private reportedAt = -Infinity;

  constructor(private readonly onLevel: LevelListener) {}

  /** Reports `analyser`'s level unless one went out less than LEVEL_EVERY_MS ago; `nowMs`: performance.now(). */
  report(analyser: AnalyserNode, held: boolean, nowMs = performance.now()): void {
    if (nowMs - this.reportedAt < LEVEL_EVERY_MS) return;
    this.reportedAt = nowMs;
    if (held) return this.onLevel(0, undefined, nowMs);
    if (this.buf.length !== analyser.fftSize) this.buf = new Float32Array(analyser.fftSize);
    analyser.getFloatTimeDomainData(this.buf);
    const { rms, heardAt, windowAt } = readLevel(this.buf, analyser.context, nowMs);
    this.onLevel(rms, heardAt, windowAt);
  }
}
