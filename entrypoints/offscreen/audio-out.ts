import { AUDIO_CHANNEL_NAME, type AudioChannelMessage, type AudioSink, type AudioSinkChunk } from '../../core/protocol';

/**
 * The offscreen end of the audio channel: the conversation and the voice previews speak into this one sink, and it
 * is the only sender on the channel (so a stop has one path to the side panel's player).
 */
export class ChannelAudioSink implements AudioSink {
  private readonly channel = new BroadcastChannel(AUDIO_CHANNEL_NAME);
  private seq = 0;
  /** The newest chunk's sequence number per turn, for the newest turns only (asked while a turn's audio plays). */
  private readonly newest = new Map<string, number>();

  chunk(turnId: string, chunk: AudioSinkChunk): void {
    const seq = this.seq++;
    this.newest.delete(turnId);
    this.newest.set(turnId, seq);
    if (this.newest.size > 16) this.newest.delete(this.newest.keys().next().value!);
    this.post({ kind: 'chunk', turnId, ...chunk, seq });
  }

  lastSentSeq(turnId: string): number | undefined {
    return this.newest.get(turnId);
  }

  end(turnId: string): void {
    this.post({ kind: 'end', turnId });
  }

  stop(turnId: string): void {
    this.post({ kind: 'stop', turnId });
  }

  pause(turnId: string, paused: boolean): void {
    this.post({ kind: 'pause', turnId, paused });
  }

  feedBehind(behind: boolean): void {
    this.post({ kind: 'feed', behind });
  }

  private post(message: AudioChannelMessage): void {
    this.channel.postMessage(message);
  }
}
