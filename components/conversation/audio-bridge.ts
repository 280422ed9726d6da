import { AUDIO_CHANNEL_NAME, AudioChannelMessageSchema, PLAYBACK_CHANNEL_NAME, type PlaybackMessage } from '../../core/protocol';
import type { AvatarHandle } from '../avatar/Avatar';

/**
 * Connects the engine's audio stream to the avatar: PCM chunks in (validated), playback events out. The avatar
 * reports started/level/ended without a turn, so the bridge tags them with the turn whose audio is playing.
 */
export class AudioBridge {
  private readonly audioIn = new BroadcastChannel(AUDIO_CHANNEL_NAME);
  private readonly playbackOut = new BroadcastChannel(PLAYBACK_CHANNEL_NAME);
  private handle: AvatarHandle | null = null;
  private turnId: string | null = null;
  private stopped = new Set<string>();
  /** Counts chunks played, for tests and the debug panel. */
  chunksPlayed = 0;

  constructor(private readonly onSpeechText?: (text: string) => void) {
    this.audioIn.onmessage = (e: MessageEvent) => {
      const parsed = AudioChannelMessageSchema.safeParse(e.data);
      if (!parsed.success) return console.warn('[sidetalk] rejected audio message:', parsed.error.issues[0]?.message);
      const msg = parsed.data;
      if (msg.kind === 'stop') {
        this.stopped.add(msg.turnId);
        if (this.turnId === msg.turnId || msg.turnId === '-1') this.handle?.interrupt();
        return;
      }
      if (msg.kind === 'end') {
        if (this.turnId === msg.turnId) this.handle?.endOfSpeech();
        return;
      }
      if (this.stopped.has(msg.turnId) || !this.handle) return;
      this.turnId = msg.turnId;
      if (msg.text) this.onSpeechText?.(msg.text);
      this.chunksPlayed += 1;
      void this.handle.speakChunk(msg.samples, msg.text ?? '');
    };
  }

  attach(handle: AvatarHandle): void {
    this.handle = handle;
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
