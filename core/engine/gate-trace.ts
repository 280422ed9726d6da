/**
 * What one barge gate saw of a reply, for its `echo-path` mark (docs/echo.md, "The barge gate"): how close the echo
 * came to a hold, and for a missed interruption which half of the rule kept the run short (the VAD or the level).
 */
export class GateTrace {
  /** The loudest voiced frame over the gate, as a multiple of the gate (above 1 was a candidate). */
  private peakOverGate = 0;
  private overGateFrames = 0;
  private longestRun = 0;
  private voicedUnderGateFrames = 0;
  private loudUnvoicedFrames = 0;

  /** A new reply: nothing seen yet. */
  reset(): void {
    this.peakOverGate = this.overGateFrames = this.longestRun = this.voicedUnderGateFrames = this.loudUnvoicedFrames = 0;
  }

  /** One frame judged against `gate`; `candidate`: voiced and over it (and agreed by the other track, where asked). */
  frame(voiced: boolean, candidate: boolean, micRms: number, gate: number): void {
    if (voiced) this.peakOverGate = Math.max(this.peakOverGate, micRms / gate);
    if (candidate) this.overGateFrames++;
    else if (voiced) this.voicedUnderGateFrames++;
    else if (micRms > gate) this.loudUnvoicedFrames++;
  }

  /** The run of candidates is now `length` frames long. */
  run(length: number): void {
    this.longestRun = Math.max(this.longestRun, length);
  }

  fields() {
    return {
      peakOverGate: this.peakOverGate,
      overGateFrames: this.overGateFrames,
      longestRun: this.longestRun,
      voicedUnderGateFrames: this.voicedUnderGateFrames,
      loudUnvoicedFrames: this.loudUnvoicedFrames,
    };
  }
}
