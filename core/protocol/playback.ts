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
  }),
  z.object({ type: z.literal('level'), rms: z.number().min(0).max(10) }),
]);
export type PlaybackMessage = z.infer<typeof PlaybackMessageSchema>;
