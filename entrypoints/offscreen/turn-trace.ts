import { TRACE_CHANNEL_NAME, traceSchemas, type TurnTraceExport } from '../../core/protocol/trace';
import { TraceLog, type EngineMarkLike } from '../../core/trace/trace-log';
import { TEST_HOOKS } from '../../core/build-flags';

/**
 * The offscreen end of the turn trace (test builds only; docs/benchmarks.md, "What the user hears"): answers the
 * side panels' clock pings at once, keeps their stamps and offsets, and takes its own stamps (TTS call and first
 * frame). Panels send nothing unless the debug panel is on.
 */
export class OffscreenTrace {
  private readonly channel = new BroadcastChannel(TRACE_CHANNEL_NAME);
  private readonly log = new TraceLog();

  constructor() {
    this.channel.onmessage = (e: MessageEvent) => {
      const parsed = traceSchemas().TraceChannelMessageSchema.safeParse(e.data);
      if (!parsed.success) return;
      const m = parsed.data;
      if (m.kind === 'ping') this.channel.postMessage({ ...m, kind: 'pong', remoteAt: performance.now() });
      else if (m.kind === 'clock') this.log.clock(m.panelId, { offsetMs: m.offsetMs, rttMs: m.rttMs });
      else if (m.kind === 'stamp') {
        const { kind: _kind, ...stamp } = m;
        this.log.panelStamp(stamp);
      }
    };
  }

  stamp(name: string, turnId: string, index?: number, info?: Record<string, number>): void {
    this.log.stamp(name, turnId, performance.now(), index, info);
  }

  export(marks: readonly EngineMarkLike[]): TurnTraceExport {
    return this.log.export(marks);
  }
}

/**
 * One per document, made when the document loads (before any conversation), so a panel's first pings are answered;
 * none in the release build.
 */
export const offscreenTrace: OffscreenTrace | null = TEST_HOOKS ? new OffscreenTrace() : null;
