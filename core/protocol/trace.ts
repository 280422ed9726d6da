import { z } from 'zod';

/**
 * The turn trace's side channel (test builds with the debug panel on; docs/benchmarks.md, "What the user hears"):
 * the side panel measures its clock against the offscreen document's with ping/pong and hands it the stamps only it
 * can see (chunk received, chunk queued to the player, first audible level, the player's started event). Stamps
 * travel on the panel's own clock; the offscreen document maps them with the panel's best (minimum round trip) offset.
 */
export const TRACE_CHANNEL_NAME = 'sidetalk-trace';

/** Stamps only the side panel can take. */
export const PANEL_STAMPS = ['panel-chunk', 'panel-queued', 'panel-audible', 'panel-started'] as const;
/** Stamps the offscreen document takes besides the engine's stage marks. */
export const OFFSCREEN_STAMPS = ['tts-call', 'tts-first-frame'] as const;

function makeTraceSchemas() {
  const PanelId = z.string().min(1).max(64);
  const TurnId = z.string().min(1).max(64);

  /** Numbers a stamp may carry: e.g. `streamStarted` (1 when the chunk had to start the player's stream). */
  const StampInfo = z.record(z.string().max(40), z.number()).refine((r) => Object.keys(r).length <= 8, 'too many fields');

  const TraceChannelMessageSchema = z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('ping'), panelId: PanelId, id: z.number().int(), sentAt: z.number() }).strict(),
    z
      .object({ kind: z.literal('pong'), panelId: PanelId, id: z.number().int(), sentAt: z.number(), remoteAt: z.number() })
      .strict(),
    /** The panel's best estimate so far: offscreen clock = panel clock + offsetMs, within ±rttMs/2. */
    z.object({ kind: z.literal('clock'), panelId: PanelId, offsetMs: z.number(), rttMs: z.number().nonnegative() }).strict(),
    z
      .object({
        kind: z.literal('stamp'),
        panelId: PanelId,
        name: z.enum(PANEL_STAMPS),
        turnId: TurnId,
        at: z.number(),
        index: z.number().int().nonnegative().optional(),
        info: StampInfo.optional(),
      })
      .strict(),
  ]);

  /** One stamp of the exported trace, on the offscreen document's clock (performance.now() there). */
  const TraceStampSchema = z.object({
    name: z.string().max(40),
    turnId: TurnId,
    at: z.number(),
    context: z.enum(['offscreen', 'panel']),
    /** Sentence index within the reply, where the stamp is per sentence. */
    index: z.number().int().nonnegative().optional(),
    info: StampInfo.optional(),
  });

  const TurnTraceExportSchema = z.object({
    /** Per panel: its clock offset onto the offscreen clock and the round trip of the ping it came from. */
    clocks: z.array(z.object({ panelId: PanelId, offsetMs: z.number(), rttMs: z.number() })),
    stamps: z.array(TraceStampSchema),
  });
  return { TraceChannelMessageSchema, TraceStampSchema, TurnTraceExportSchema };
}

type TraceSchemas = ReturnType<typeof makeTraceSchemas>;
let schemas: TraceSchemas | null = null;
/** Built on first use, so the release build (which never calls it) carries none of it (core/build-flags.ts). */
export function traceSchemas(): TraceSchemas {
  return (schemas ??= makeTraceSchemas());
}

export type TraceChannelMessage = z.infer<TraceSchemas['TraceChannelMessageSchema']>;
export type TraceStamp = z.infer<TraceSchemas['TraceStampSchema']>;
export type TurnTraceExport = z.infer<TraceSchemas['TurnTraceExportSchema']>;
