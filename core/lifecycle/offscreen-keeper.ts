/**
 * Keeps exactly one offscreen document alive while anything needs it. Chrome allows one per profile and a second
 * createDocument rejects, so creation goes through one in-flight promise. A document that misses several pings in a
 * row is closed and created again; one that vanished (closed, crashed, extension reload) is re-created on demand.
 * One late answer is not enough: on a busy machine the document's thread can be held for seconds while it works, and
 * replacing it throws away every loaded model and the conversation (docs/architecture.md, "The offscreen keeper");
 * nor is any number of them while the document's heartbeat still arrives.
 */
/** How often the offscreen document sends its heartbeat over its port (ms): a timer on its own thread. */
export const OFFSCREEN_HEARTBEAT_MS = 5_000;

export interface OffscreenAdapter {
  exists(): Promise<boolean>;
  create(): Promise<void>;
  close(): Promise<void>;
  /** Resolves when the document answers, rejects or times out otherwise. */
  ping(timeoutMs: number): Promise<void>;
}

export interface OffscreenKeeperOptions {
  pingTimeoutMs: number;
  /** Consecutive unanswered pings before the document is replaced (1: the first miss replaces it). */
  missesToReplace?: number;
  /**
   * Ms since the document last showed it is running (a heartbeat over its port), Infinity if never. A document whose
   * ping went unanswered but that beat within `aliveWithinMs` is busy, not hung: its miss does not count.
   */
  sinceHeartbeatMs?: () => number;
  aliveWithinMs?: number;
  onCreated?: (count: number) => void;
  onError?: (message: string) => void;
}

export class OffscreenKeeper {
  private inFlight: Promise<void> | null = null;
  private created = 0;
  private misses = 0;

  constructor(
    private readonly adapter: OffscreenAdapter,
    private readonly options: OffscreenKeeperOptions,
  ) {}

  get createdCount(): number {
    return this.created;
  }

  /** Makes sure a document exists; concurrent callers share one creation. */
  ensure(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    this.inFlight = (async () => {
      try {
        if (await this.adapter.exists()) return;
        await this.adapter.create();
        this.created += 1;
        this.options.onCreated?.(this.created);
      } catch (err) {
        // A racing creation elsewhere (e.g. a second SW instance) leaves a document behind: that is success.
        if (await this.adapter.exists().catch(() => false)) return;
        this.options.onError?.(err instanceof Error ? err.message : String(err));
        throw err;
      }
    })().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  /**
   * Health check: a missing document is created; a present one that does not answer is `busy` while its heartbeat
   * arrives, else `unanswered` until it has missed `missesToReplace` pings in a row, then replaced. Returns what it
   * found so callers can report it.
   */
  async check(): Promise<'healthy' | 'created' | 'busy' | 'unanswered' | 'replaced'> {
    if (this.inFlight) await this.inFlight.catch(() => undefined);
    if (!(await this.adapter.exists())) {
      this.misses = 0;
      await this.ensure();
      return 'created';
    }
    try {
      await this.adapter.ping(this.options.pingTimeoutMs);
      this.misses = 0;
      return 'healthy';
    } catch {
      const { sinceHeartbeatMs, aliveWithinMs } = this.options;
      if (sinceHeartbeatMs && aliveWithinMs !== undefined && sinceHeartbeatMs() <= aliveWithinMs) return 'busy';
      this.misses += 1;
      if (this.misses < (this.options.missesToReplace ?? 1)) return 'unanswered';
      this.misses = 0;
      await this.adapter.close().catch(() => undefined);
      await this.ensure();
      return 'replaced';
    }
  }
}
