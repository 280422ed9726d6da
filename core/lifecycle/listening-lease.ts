/**
 * Listening lasts as long as a side panel is open (docs/security.md, "Microphone and camera"). The background counts
 * the open panels by their ports; when the last one closes (or its port drops), hands-free, push-to-talk and vision
 * stop at once, and while none is open nothing may start them and nothing re-creates the engine for them. A fresh
 * service worker knows no panel until the open ones reconnect: if none has after `reconnectGraceMs`, what was left
 * on is stopped the same way.
 */
import type { Timers } from './timers';

export interface ListeningLeaseOptions {
  timers: Timers;
  /** Stop the microphone and the camera (switches off, engine told to stop). Runs when the last panel goes. */
  stopAll: () => void;
  /** The panels' count went from 0 to 1 or back: the popup shows whether it may turn things on. */
  onOpenChange?: (open: boolean) => void;
  /** How long a new worker waits for open panels to reconnect before it stops what was left on. */
  reconnectGraceMs: number;
}

export class ListeningLease {
  private panels = 0;
  private grace: unknown = null;

  constructor(private readonly options: ListeningLeaseOptions) {}

  /** Whether a side panel is open now. */
  get open(): boolean {
    return this.panels > 0;
  }

  /** A new worker: panels that are open reconnect; if none does in time, nothing may be left listening. */
  workerStarted(): void {
    this.grace = this.options.timers.setTimeout(() => {
      this.grace = null;
      if (this.panels === 0) this.options.stopAll();
    }, this.options.reconnectGraceMs);
  }

  panelOpened(): void {
    this.panels += 1;
    if (this.grace !== null) {
      this.options.timers.clearTimeout(this.grace);
      this.grace = null;
    }
    if (this.panels === 1) this.options.onOpenChange?.(true);
  }

  panelClosed(): void {
    if (this.panels === 0) return;
    this.panels -= 1;
    if (this.panels > 0) return;
    this.options.stopAll();
    this.options.onOpenChange?.(false);
  }

  /** The microphone or the camera may be turned on (hands-free, push-to-talk down, vision) only for an open panel. */
  mayStart(): boolean {
    return this.open;
  }

  /**
   * Whether a dead engine is re-created: for an open panel, or to finish a download the user started (downloads go
   * on without a panel). A re-created engine resumes listening or vision only for an open panel (`mayStart`).
   */
  mayRecreateEngine(pendingDownloads: boolean): boolean {
    return this.open || pendingDownloads;
  }
}
