/**
 * Whether the microphone feed runs behind real time: the offscreen document handles its frames late because its
 * renderer thread, which it shares with the side panel, is busy (docs/avatar.md, "When the microphone falls behind").
 * Behind as soon as one frame is handled more than `feedBehindMs` after its capture; caught up once every frame for
 * `feedCaughtUpHoldMs` was handled within `feedCaughtUpMs`, so a feed at the edge does not flip the avatar's frame
 * rate on every frame.
 */
import { lipsyncTunables as T } from '../tunables';

export class FeedLagWatch {
  private behind = false;
  /** Since when every frame has been on time (null: the last one was not). */
  private onTimeSince: number | null = null;

  get isBehind(): boolean {
    return this.behind;
  }

  /** One frame handled `lagMs` after its capture, at `now` (ms). Returns the new state when it changed, else null. */
  frame(lagMs: number, now: number): boolean | null {
    if (lagMs > T.feedBehindMs) {
      this.onTimeSince = null;
      if (this.behind) return null;
      this.behind = true;
      return true;
    }
    if (!this.behind) return null;
    if (lagMs > T.feedCaughtUpMs) {
      this.onTimeSince = null;
      return null;
    }
    this.onTimeSince ??= now;
    if (now - this.onTimeSince < T.feedCaughtUpHoldMs) return null;
    this.behind = false;
    this.onTimeSince = null;
    return false;
  }
}
