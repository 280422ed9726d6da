/**
 * One push-to-talk hold (docs/security.md, "Microphone and camera"). A hold ends when the user lets go, and also when
 * the page loses the user (window blur, hidden, page hide), when listening is stopped, and at the latest after
 * `listening.pttMaxHoldMs`: a key-up that never arrives (focus moved, the panel closed mid-hold) cannot leave the
 * microphone open. The side panel and the offscreen document each keep one, so either side alone ends a stuck hold.
 */
import { listeningTunables } from '../tunables';
import type { Timers } from './timers';

export type PttReleaseReason = 'released' | 'blur' | 'hidden' | 'pagehide' | 'cap';

export class PushToTalkHold {
  private timer: unknown = null;
  private holding = false;

  /** `onRelease` runs once for every hold that ends, whatever ended it. */
  constructor(
    private readonly timers: Timers,
    private readonly onRelease: (reason: PttReleaseReason) => void,
  ) {}

  get held(): boolean {
    return this.holding;
  }

  /** Starts a hold; false when one is already held (a key repeat, a second press). */
  press(): boolean {
    if (this.holding) return false;
    this.holding = true;
    this.timer = this.timers.setTimeout(() => this.release('cap'), listeningTunables.pttMaxHoldMs);
    return true;
  }

  /** Forgets the hold without running `onRelease`: the owner is stopping everything itself (listening off). */
  clear(): void {
    this.holding = false;
    this.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  /** Ends the hold; false when none was held (nothing to release, `onRelease` does not run). */
  release(reason: PttReleaseReason): boolean {
    if (!this.holding) return false;
    this.holding = false;
    this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.onRelease(reason);
    return true;
  }
}
