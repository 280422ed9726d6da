import { PANEL_STAMPS, TRACE_CHANNEL_NAME, traceSchemas, type TraceChannelMessage } from '../../core/protocol/trace';
import { ClockSync } from '../../core/trace/clock-sync';

type PanelStampName = (typeof PANEL_STAMPS)[number];

/** Pings at start (the tightest round trips come while nothing else runs), then now and then to keep the estimate. */
const STARTUP_PINGS = 10;
const STARTUP_SPACING_MS = 30;
const LATER_PING_MS = 5_000;

/**
 * The side panel's end of the turn trace (test builds with the debug panel on; docs/benchmarks.md, "What the user
 * hears"): measures this page's clock against the offscreen document's by ping/pong and sends it the stamps only
 * the panel sees, on this page's clock, plus its best offset so the offscreen document can map them.
 */
export class PanelTrace {
  private readonly channel = new BroadcastChannel(TRACE_CHANNEL_NAME);
  private readonly sync = new ClockSync();
  private readonly panelId = `p${Math.floor(Math.random() * 1e9).toString(36)}`;
  private readonly timers: ReturnType<typeof setTimeout>[] = [];

  constructor() {
    this.channel.onmessage = (e: MessageEvent) => {
      const receivedAt = performance.now();
      const parsed = traceSchemas().TraceChannelMessageSchema.safeParse(e.data);
      if (!parsed.success) return;
      const m = parsed.data;
      if (m.kind !== 'pong' || m.panelId !== this.panelId) return;
      if (this.sync.pong(m.id, m.remoteAt, receivedAt) && this.sync.best)
        this.post({ kind: 'clock', panelId: this.panelId, ...this.sync.best });
    };
    for (let i = 0; i < STARTUP_PINGS; i++) this.timers.push(setTimeout(() => this.ping(), i * STARTUP_SPACING_MS));
    this.timers.push(setInterval(() => this.ping(), LATER_PING_MS));
  }

  /** `at`: when it happened on this page's clock, if not now (the first audible sample is heard before it is seen). */
  stamp(name: PanelStampName, turnId: string, index?: number, info?: Record<string, number>, at = performance.now()): void {
    this.post({
      kind: 'stamp',
      panelId: this.panelId,
      name,
      turnId,
      at,
      ...(index !== undefined ? { index } : {}),
      ...(info ? { info } : {}),
    });
  }

  private ping(): void {
    this.post({ kind: 'ping', panelId: this.panelId, ...this.sync.ping(performance.now()) });
  }

  private post(message: TraceChannelMessage): void {
    this.channel.postMessage(message);
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.channel.close();
  }
}
