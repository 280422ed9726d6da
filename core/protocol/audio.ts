import { z } from 'zod';

/**
 * Binary audio from the offscreen document to the side panel over a BroadcastChannel (runtime messaging is
 * JSON-only and would turn a Float32Array into an object with one key per sample).
 */
export const AUDIO_CHANNEL_NAME = 'sidetalk-audio';

export const AudioChunkSchema = z.object({
  kind: z.literal('chunk'),
  turnId: z.string().min(1).max(64),
  seq: z.number().int().nonnegative(),
  sampleRate: z.number().int().min(8000).max(96_000),
  samples: z
    .instanceof(Float32Array)
    .refine((s) => s.length <= 96_000 * 10, 'chunk longer than 10 s')
    // A NaN reaching the worklet would be heard as a click or silence; the side panel refuses the chunk instead.
    .refine((s) => s.every(Number.isFinite), 'audio has NaN or infinite samples'),
  text: z.string().max(2000).optional(),
  /** The TTS voice speaking (a preset or a cloned, synthetic voice), so the panel can say whose voice it is. */
  voiceId: z.string().max(200).optional(),
});

export const AudioStopSchema = z.object({
  kind: z.literal('stop'),
  turnId: z.string().min(1).max(64),
});

/**
 * Speech over the reply holds it (`paused`: true) while the engine decides whether it is an interruption or a
 * backchannel; a backchannel lets it go on from where it stopped (`paused`: false; docs/echo.md, "Holding the reply").
 */
export const AudioPauseSchema = z.object({
  kind: z.literal('pause'),
  turnId: z.string().min(1).max(64),
  paused: z.boolean(),
});

/** The turn's reply has no more audio: playback ends when what is queued has played. */
export const AudioEndSchema = z.object({
  kind: z.literal('end'),
  turnId: z.string().min(1).max(64),
});

/**
 * The offscreen document's microphone feed runs behind real time (`behind`), or has caught up: the side panel shares
 * its thread, and draws fewer avatar frames meanwhile (core/lifecycle/feed-lag.ts).
 */
export const AudioFeedSchema = z.object({
  kind: z.literal('feed'),
  behind: z.boolean(),
});

export const AudioChannelMessageSchema = z.discriminatedUnion('kind', [
  AudioChunkSchema,
  AudioStopSchema,
  AudioEndSchema,
  AudioPauseSchema,
  AudioFeedSchema,
]);
export type AudioChannelMessage = z.infer<typeof AudioChannelMessageSchema>;
export type AudioChunk = z.infer<typeof AudioChunkSchema>;

/**
 * One chunk of a reply's audio as a sink receives it (the channel adds the turn id and sequence number; the receiving
 * end hands the sequence number on).
 */
export type AudioSinkChunk = Pick<AudioChunk, 'sampleRate' | 'samples' | 'text' | 'voiceId'> & { seq?: number };

/**
 * Where a reply's audio goes, on both ends of the audio channel: the offscreen document speaks into one (it posts to
 * the side panel), and the side panel's player is one (the bridge hands it what arrived). `stop` is the one way a
 * turn's audio is cut, so an interruption has a single path from the engine to the speaker.
 */
export interface AudioSink {
  chunk(turnId: string, chunk: AudioSinkChunk): void;
  /** The turn has no more audio: it ends when what is queued has played. */
  end(turnId: string): void;
  /** Cut the turn's audio now; later chunks of it are dropped. */
  stop(turnId: string): void;
  /** Hold the turn's audio where it is (`paused`), or go on from there; nothing of it is skipped. */
  pause(turnId: string, paused: boolean): void;
  /** The microphone feed runs behind real time, or has caught up (not a turn's audio: the player draws less meanwhile). */
  feedBehind?(behind: boolean): void;
  /**
   * The channel's sequence number of the newest chunk of `turnId` this sink sent, if it sent any lately (the sending
   * end; docs/echo.md, "A drain is not the end").
   */
  lastSentSeq?(turnId: string): number | undefined;
}

/** Hands one validated channel message to a sink: the receiving end of the channel. */
export function deliverAudioMessage(message: AudioChannelMessage, sink: AudioSink): void {
  switch (message.kind) {
    case 'chunk':
      return sink.chunk(message.turnId, {
        sampleRate: message.sampleRate,
        samples: message.samples,
        seq: message.seq,
        ...(message.text !== undefined ? { text: message.text } : {}),
        ...(message.voiceId !== undefined ? { voiceId: message.voiceId } : {}),
      });
    case 'end':
      return sink.end(message.turnId);
    case 'stop':
      return sink.stop(message.turnId);
    case 'pause':
      return sink.pause(message.turnId, message.paused);
    case 'feed':
      return sink.feedBehind?.(message.behind);
  }
}
