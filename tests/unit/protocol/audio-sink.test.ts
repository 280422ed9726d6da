import { afterEach, describe, expect, it } from 'vitest';
import {
  AUDIO_CHANNEL_NAME,
  AudioChannelMessageSchema,
  deliverAudioMessage,
  type AudioSink,
  type AudioSinkChunk,
} from '../../../core/protocol';
import { ChannelAudioSink } from '../../../entrypoints/offscreen/audio-out';

/** Records what a sink was told, in order. */
class RecordingSink implements AudioSink {
  readonly calls: (
    ['chunk', string, AudioSinkChunk] | ['end' | 'stop', string] | ['pause', string, boolean] | ['feed', '', boolean]
  )[] = [];
  feedBehind(behind: boolean): void {
    this.calls.push(['feed', '', behind]);
  }
  chunk(turnId: string, chunk: AudioSinkChunk): void {
    this.calls.push(['chunk', turnId, chunk]);
  }
  end(turnId: string): void {
    this.calls.push(['end', turnId]);
  }
  stop(turnId: string): void {
    this.calls.push(['stop', turnId]);
  }
  pause(turnId: string, paused: boolean): void {
    this.calls.push(['pause', turnId, paused]);
  }
}

const channels: BroadcastChannel[] = [];
afterEach(() => channels.splice(0).forEach((c) => c.close()));

describe('the audio channel is one AudioSink on both ends', () => {
  it('what the offscreen sink is told arrives as the same calls on the side-panel sink', async () => {
    const receiving = new RecordingSink();
    const rejected: string[] = [];
    const inbound = new BroadcastChannel(AUDIO_CHANNEL_NAME);
    channels.push(inbound);
    inbound.onmessage = (e: MessageEvent) => {
      const parsed = AudioChannelMessageSchema.safeParse(e.data);
      if (!parsed.success) return rejected.push(parsed.error.issues[0]?.message ?? '?');
      deliverAudioMessage(parsed.data, receiving);
    };
    const out = new ChannelAudioSink();
    const samples = new Float32Array([0, 0.25, -0.25]);
    out.chunk('t1', { sampleRate: 24_000, samples, text: 'Hello.', voiceId: 'alba' });
    out.chunk('t1', { sampleRate: 24_000, samples });
    out.pause('t1', true);
    out.pause('t1', false);
    out.stop('t1');
    out.end('t2');
    out.feedBehind(true);
    out.feedBehind(false);
    await new Promise((r) => setTimeout(r, 50));
    expect(rejected).toEqual([]);
    expect(receiving.calls.map((c) => [c[0], c[1]])).toEqual([
      ['chunk', 't1'],
      ['chunk', 't1'],
      ['pause', 't1'],
      ['pause', 't1'],
      ['stop', 't1'],
      ['end', 't2'],
      ['feed', ''],
      ['feed', ''],
    ]);
    expect(receiving.calls.filter((c) => c[0] === 'feed').map((c) => c[2])).toEqual([true, false]);
    expect(AudioChannelMessageSchema.safeParse({ kind: 'feed', behind: 'yes' }).success).toBe(false);
    expect(receiving.calls.filter((c) => c[0] === 'pause').map((c) => c[2])).toEqual([true, false]);
    const first = receiving.calls[0]![2] as AudioSinkChunk;
    expect(first).toMatchObject({ sampleRate: 24_000, text: 'Hello.', voiceId: 'alba' });
    expect([...first.samples]).toEqual([0, 0.25, -0.25]);
    expect((receiving.calls[1]![2] as AudioSinkChunk).text).toBeUndefined();
  });

  it('a chunk with NaN samples is refused at the receiving end', () => {
    const parsed = AudioChannelMessageSchema.safeParse({
      kind: 'chunk',
      turnId: 't1',
      seq: 0,
      sampleRate: 24_000,
      samples: new Float32Array([Number.NaN]),
    });
    expect(parsed.success).toBe(false);
  });
});
