/**
 * The VAD on the unprocessed microphone track (docs/echo.md, "Both tracks gate a barge-in"). The engine reads its
 * P(speech) only while a reply plays, so it runs only then, from a fresh state each reply; and not on a frame the feed
 * handles late: a second VAD on the offscreen thread is the work a feed behind real time can drop, where a backlog
 * would hold every message to the document behind it.
 */
import { engineTunables as T } from '../../core/tunables';
import type { MicFrame } from '../audio/mic-capture';

export interface FrameVad {
  processSync(frame: Float32Array): number;
  reset(): void;
}

export class UnprocessedVad {
  private running = false;
  private shedCount = 0;

  constructor(private readonly vad: FrameVad) {}

  /** Frames over a reply whose VAD was dropped because they came late. */
  get shed(): number {
    return this.shedCount;
  }

  /** The frame's unprocessed twin for the engine; `prob` only over a reply and on time. `nowMs`: performance.now(). */
  frame(
    frame: Pick<MicFrame, 'raw' | 'capturedAt'>,
    overReply: boolean,
    nowMs: number,
  ): { rms: number; prob?: number } | undefined {
    const raw = frame.raw;
    if (!raw) return undefined;
    if (!overReply) {
      this.running = false;
      return { rms: raw.rms };
    }
    if (nowMs - frame.capturedAt > T.unprocessedVadMaxLagMs) {
      this.shedCount += 1;
      return { rms: raw.rms };
    }
    if (!this.running) {
      this.vad.reset();
      this.running = true;
    }
    return { rms: raw.rms, prob: this.vad.processSync(raw.samples) };
  }
}
