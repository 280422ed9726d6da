// Progress for one bundle: bytes held (including what earlier runs stored), a transfer-rate moving average and an ETA.
// Throttled so a fast local download does not flood runtime messaging; the clock is injected so tests are exact.
import type { DownloadProgress } from './types';

export interface ProgressSettings {
  intervalMs: number;
  alpha: number;
}

export class ProgressMeter {
  private transferred = 0;
  private lastEmitAt = -Infinity;
  private lastSampleAt: number | undefined;
  private lastSampleBytes = 0;
  private speed = 0;

  constructor(
    private readonly now: () => number,
    private readonly settings: ProgressSettings,
    private readonly emit: (p: DownloadProgress) => void,
  ) {}

  /** Counts bytes that actually crossed the network (resumed bytes are not speed). */
  addTransferred(n: number): void {
    this.transferred += n;
  }

  /** Reports the current position; emits if the interval passed or `force` is set. */
  report(p: Omit<DownloadProgress, 'speedBps' | 'etaSeconds'>, force = false): void {
    const t = this.now();
    if (!force && t - this.lastEmitAt < this.settings.intervalMs) return;
    this.lastEmitAt = t;
    if (this.lastSampleAt === undefined) {
      this.lastSampleAt = t;
      this.lastSampleBytes = this.transferred;
    } else if (t > this.lastSampleAt) {
      const inst = ((this.transferred - this.lastSampleBytes) * 1000) / (t - this.lastSampleAt);
      this.speed = this.speed === 0 ? inst : this.settings.alpha * inst + (1 - this.settings.alpha) * this.speed;
      this.lastSampleAt = t;
      this.lastSampleBytes = this.transferred;
    }
    const left = Math.max(0, p.total - p.bytes);
    const etaSeconds = left === 0 ? 0 : this.speed > 0 ? left / this.speed : null;
    this.emit({ ...p, speedBps: this.speed, etaSeconds });
  }
}
