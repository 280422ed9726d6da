import { z } from 'zod';

/**
 * Playback events from the side panel back to the engine, over a BroadcastChannel (they arrive every ~32 ms while
 * audio plays, too often for runtime messaging). The engine uses them for barge-in and to know when a reply ended.
 */
export const PLAYBACK_CHANNEL_NAME = 'sidetalk-playback';

/** An hour: longer than any reply. */
const MAX_PLAYED_MS = 3_600_000;

export const PlaybackMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('started'), turnId: z.string().min(1).max(64) }),
  z.object({
    type: z.literal('ended'),
    turnId: z.string().min(1).max(64),
    interrupted: z.boolean().optional(),
    /**
     * How much of the turn's audio the player rendered before it ended or was stopped, in ms (the turn's own samples,
     * not the gaps between them): the engine keeps only the words heard of an interrupted reply (docs/interruptions.md).
     */
    playedMs: z.number().min(0).max(MAX_PLAYED_MS).optional(),
    /**
     * The audio channel's sequence number of the newest chunk of the turn the panel had received when the run ended:
     * older than the newest the offscreen document sent means the player ran dry while more of the reply was on its
     * way (docs/echo.md, "A drain is not the end").
     */
    lastSeq: z.number().int().min(0).optional(),
  }),
  z.object({
    type: z.literal('level'),
    rms: z.number().min(0).max(10),
    /**
     * When this level is heard from the speakers, in epoch ms (performance.timeOrigin + performance.now() of the
     * panel): the engine places it there instead of at its arrival (docs/echo.md, "When a level was heard").
     */
    at: z.number().positive().finite().optional(),
  }),
  /**
   * What the speakers got, block by block from the end of the panel's audio graph: the echo canceller's reference
   * (docs/echo-canceller.md, "The reference"). `at`: when the block's first sample is heard, in epoch ms as for a
   * level. Only blocks with sound are sent; silence between them is silence.
   */
  z.object({
    type: z.literal('played'),
    at: z.number().positive().finite(),
    sampleRate: z.number().int().min(8000).max(96_000),
    samples: z
      .instanceof(Float32Array)
      .refine((s) => s.length > 0 && s.length <= 4096, 'a played block is 1 to 4096 samples')
      .refine((s) => s.every(Number.isFinite), 'audio has NaN or infinite samples'),
  }),
]);
export type PlaybackMessage = z.infer<typeof PlaybackMessageSchema>;

/** A level heard this far from its arrival is not believed (clocks that disagree): it is placed at its arrival. */
export const LEVEL_HEARD_BEFORE_MS = 2_000;
const LEVEL_HEARD_AFTER_MS = 1_000;

/**
 * When a reported level is heard, on the receiving document's performance.now() clock: the panel sends epoch ms
 * (its timeOrigin plus its performance.now()); both documents' origins are on the same system clock. Undefined when
 * the panel did not say, or the time is implausibly far from `now` (a level cannot be heard seconds before it was
 * read, and output latency is well under a second). `earliestMs`: how long ago it may have been heard; a receiver that
 * keeps what was played for longer (the echo reference) takes blocks a busy panel sent late.
 */
export function levelHeardAt(
  message: { at?: number },
  timeOrigin: number,
  now: number,
  earliestMs = LEVEL_HEARD_BEFORE_MS,
): number | undefined {
  if (message.at === undefined) return undefined;
  const at = message.at - timeOrigin;
  return at >= now - earliestMs && at <= now + LEVEL_HEARD_AFTER_MS ? at : undefined;
}

/**
 * A run's end as the engine takes it (docs/echo.md, "A drain is not the end"): `audioInFlight` when the newest chunk
 * of the turn the panel had received is older than the newest the sink sent, so the player ran dry while more of the
 * reply was on its way (the channel keeps order: that audio arrives after the end was sent). Never for a cut, nor
 * when either end does not say.
 */
export function endedWithAudioInFlight(
  message: Extract<PlaybackMessage, { type: 'ended' }>,
  sink: { lastSentSeq?(turnId: string): number | undefined },
): Omit<Extract<PlaybackMessage, { type: 'ended' }>, 'lastSeq'> & { audioInFlight?: boolean } {
  const { lastSeq, ...ended } = message;
  const sent = sink.lastSentSeq?.(message.turnId);
  const inFlight = !message.interrupted && lastSeq !== undefined && sent !== undefined && lastSeq < sent;
  return inFlight ? { ...ended, audioInFlight: true } : ended;
}
