import {
  AUDIO_CHANNEL_NAME,
  AudioChannelMessageSchema,
  deliverAudioMessage,
  PLAYBACK_CHANNEL_NAME,
  type AudioSink,
  type AudioSinkChunk,
  type PlaybackMessage,
} from '../../core/protocol';
import type { AvatarHandle } from '../avatar/Avatar';

/**
 * The side-panel end of the audio channel: messages arrive validated and are handed to this player, the same
 * `AudioSink` the offscreen document spoke into, so a stop there is a stop here. Playback events go back tagged with
 * the turn whose audio is playing (the avatar reports started/level/ended without one).
 */
export class AudioBridge implements AudioSink {
  private readonly audioIn = new BroadcastChannel(AUDIO_CHANNEL_NAME);
  private readonly playbackOut = new BroadcastChannel(PLAYBACK_CHANNEL_NAME);
  private handle: AvatarHandle | null = null;
  private turnId: string | null = null;
  private readonly stopped = new Set<string>();
  /** Counts chunks played, for tests and the debug panel. */
  chunksPlayed = 0;

  constructor(private readonly onSpeechText?: (text: string) => void) {
    this.audioIn.onmessage = (e: MessageEvent) => {
      const parsed = AudioChannelMessageSchema.safeParse(e.data);
      if (!parsed.success) return console.warn('[sidetalk] rejected audio message:', parsed.error.issues[0]?.message);
      deliverAudioMessage(parsed.data, this);
    };
  }

  attach(handle: AvatarHandle): void {
    this.handle = handle;
  }

  chunk(turnId: string, chunk: AudioSinkChunk): void {
    if (this.stopped.has(turnId) || !this.handle) return;
    this.turnId = turnId;
    if (chunk.text) this.onSpeechText?.(chunk.text);
    this.chunksPlayed += 1;
    void this.handle.speakChunk(chunk.samples, chunk.text ?? '');
  }

  end(turnId: string): void {
    if (this.turnId === turnId) this.handle?.endOfSpeech();
  }

  stop(turnId: string): void {
    this.stopped.add(turnId);
    if (this.turnId === turnId) this.handle?.interrupt();
  }

  private report(message: PlaybackMessage): void {
    this.playbackOut.postMessage(message);
  }

  started(): void {
    if (this.turnId) this.report({ type: 'started', turnId: this.turnId });
  }

  level(rms: number): void {
    this.report({ type: 'level', rms: Math.min(10, Math.max(0, rms)) });
  }

  ended(interrupted: boolean): void {
    if (this.turnId) this.report({ type: 'ended', turnId: this.turnId, interrupted });
  }

  close(): void {
    this.audioIn.close();
    this.playbackOut.close();
  }
}
