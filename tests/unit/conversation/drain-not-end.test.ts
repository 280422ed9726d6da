/**
 * A drain is not the end (docs/echo.md): the side panel's player ran dry while more of the reply was on its way. Both
 * ends of the real channels: the offscreen sink sends chunks, the panel's bridge receives them and reports the end of
 * each run with the newest chunk it had, and the offscreen document compares that with the newest it sent.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AudioBridge } from '../../../components/conversation/audio-bridge';
import { endedWithAudioInFlight, PLAYBACK_CHANNEL_NAME, type PlaybackMessage } from '../../../core/protocol/playback';
import { ChannelAudioSink } from '../../../entrypoints/offscreen/audio-out';

type Ended = Extract<PlaybackMessage, { type: 'ended' }>;
const samples = () => new Float32Array(240);
const settle = () => new Promise((r) => setTimeout(r, 20));

/** The sink, the bridge, and each run's end as the offscreen document takes it when it arrives. */
function rig(speakChunk: () => Promise<unknown> = async () => ({ streamStarted: true })) {
  const ends: { lastSeq?: number; engine: ReturnType<typeof endedWithAudioInFlight> }[] = [];
  const out = new ChannelAudioSink();
  const listen = new BroadcastChannel(PLAYBACK_CHANNEL_NAME);
  listen.onmessage = (e: MessageEvent) => {
    const m = e.data as PlaybackMessage;
    if (m.type === 'ended') ends.push({ lastSeq: m.lastSeq, engine: endedWithAudioInFlight(m, out) });
  };
  const bridge = new AudioBridge();
  bridge.attach({ speakChunk, pause: () => {}, interrupt: () => {} } as never);
  const close = () => {
    listen.close();
    bridge.close();
    (out as unknown as { channel: BroadcastChannel }).channel.close();
  };
  return { ends, out, bridge, close };
}

let close = () => {};
afterEach(() => {
  close();
  vi.restoreAllMocks();
});

describe('a drain is not the end', () => {
  it('a run that ended with every chunk in is the end; one that ended before the next chunk came is not', async () => {
    const r = rig();
    close = r.close;
    r.out.chunk('t1', { sampleRate: 24_000, samples: samples(), text: 'One.' });
    r.out.chunk('t1', { sampleRate: 24_000, samples: samples() });
    await settle();
    r.bridge.started();
    r.bridge.ended(false, 400);
    await settle();
    // The last sentence is sent as the player runs dry: the run's end crosses it on the way.
    r.out.chunk('t1', { sampleRate: 24_000, samples: samples(), text: 'Two.' });
    r.bridge.ended(false, 0);
    await settle();
    r.bridge.started();
    r.bridge.ended(false, 300);
    await settle();
    expect(r.ends.map((e) => e.lastSeq)).toEqual([1, 1, 2]);
    const engine = r.ends.map((e) => e.engine);
    expect(engine.map((e) => e.audioInFlight ?? false)).toEqual([false, true, false]);
    for (const e of engine) expect(e).not.toHaveProperty('lastSeq');
    expect(engine[2]).toMatchObject({ type: 'ended', turnId: 't1', playedMs: 700 });
  });

  it('a cut, an end that does not say, and another turn are never audio in flight', () => {
    const out = new ChannelAudioSink();
    close = () => (out as unknown as { channel: BroadcastChannel }).channel.close();
    out.chunk('t1', { sampleRate: 24_000, samples: samples() });
    out.chunk('t1', { sampleRate: 24_000, samples: samples() });
    const inFlight = (e: Ended) => endedWithAudioInFlight(e, out).audioInFlight ?? false;
    expect(inFlight({ type: 'ended', turnId: 't1', lastSeq: 0 })).toBe(true);
    expect(inFlight({ type: 'ended', turnId: 't1', lastSeq: 0, interrupted: true })).toBe(false);
    expect(inFlight({ type: 'ended', turnId: 't1' })).toBe(false);
    expect(inFlight({ type: 'ended', turnId: 't9', lastSeq: 0 })).toBe(false);
    expect(endedWithAudioInFlight({ type: 'ended', turnId: 't1' }, {})).toEqual({ type: 'ended', turnId: 't1' });
  });

  it('a chunk the player could not take after a run ran dry: the run is reported over again, with it counted', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    let n = 0;
    const r = rig(() => (++n === 2 ? Promise.reject(new Error('Worklet loading timed out')) : Promise.resolve({})));
    close = r.close;
    r.out.chunk('t1', { sampleRate: 24_000, samples: samples(), text: 'One.' });
    await settle();
    r.bridge.started();
    r.out.chunk('t1', { sampleRate: 24_000, samples: samples(), text: 'Two.' });
    r.bridge.ended(false, 400);
    await settle();
    expect(r.ends.map((e) => e.lastSeq)).toEqual([0, 1]);
    expect(r.ends.map((e) => e.engine.audioInFlight ?? false)).toEqual([true, false]);
  });
});
