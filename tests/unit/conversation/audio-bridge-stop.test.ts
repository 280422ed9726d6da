import { afterEach, describe, expect, it } from 'vitest';
import { AudioBridge } from '../../../components/conversation/audio-bridge';
import { PLAYBACK_CHANNEL_NAME } from '../../../core/protocol';

type Report = { type: string; turnId?: string; interrupted?: boolean; playedMs?: number };

function rig() {
  const reports: Report[] = [];
  const listen = new BroadcastChannel(PLAYBACK_CHANNEL_NAME);
  listen.onmessage = (e: MessageEvent) => {
    if ((e.data as Report).type === 'ended') reports.push(e.data as Report);
  };
  const bridge = new AudioBridge();
  let playing = false;
  bridge.attach({
    speakChunk: async () => {
      playing = true;
    },
    pause: () => {},
    // The player reports an interrupted end only when it was playing (components/avatar/avatar-controller.ts).
    interrupt: () => {
      if (playing) {
        playing = false;
        bridge.ended(true, 300);
      }
    },
  } as never);
  const drain = (playedMs: number) => {
    playing = false;
    bridge.ended(false, playedMs);
  };
  const settle = () => new Promise((r) => setTimeout(r, 20));
  return { reports, bridge, drain, settle, close: () => (listen.close(), bridge.close()) };
}

const chunk = { seq: 0, sampleRate: 24000, samples: new Float32Array(240), text: 'Hello.', final: false };
let close = () => {};
afterEach(() => close());

describe('AudioBridge: a stop reports how much of the turn played', () => {
  it('while playing, the player reports the interrupted end (the runs so far added up)', async () => {
    const r = rig();
    close = r.close;
    r.bridge.chunk('5', chunk);
    r.drain(1000);
    r.bridge.chunk('5', { ...chunk, seq: 1, text: undefined } as never);
    r.bridge.stop('5');
    await r.settle();
    expect(r.reports).toEqual([
      { type: 'ended', turnId: '5', interrupted: false, playedMs: 1000, lastSeq: 0 },
      { type: 'ended', turnId: '5', interrupted: true, playedMs: 1300, lastSeq: 1 },
    ]);
  });

  it('when the player is idle between runs of the turn, the bridge reports the interrupted end itself, once', async () => {
    const r = rig();
    close = r.close;
    r.bridge.chunk('6', chunk);
    r.drain(1840);
    r.bridge.stop('6');
    r.bridge.stop('6');
    await r.settle();
    expect(r.reports).toEqual([
      { type: 'ended', turnId: '6', interrupted: false, playedMs: 1840, lastSeq: 0 },
      { type: 'ended', turnId: '6', interrupted: true, playedMs: 1840, lastSeq: 0 },
    ]);
  });

  it('a stop for another turn reports nothing', async () => {
    const r = rig();
    close = r.close;
    r.bridge.chunk('7', chunk);
    r.drain(500);
    r.bridge.stop('8');
    await r.settle();
    expect(r.reports.filter((x) => x.interrupted)).toEqual([]);
  });
});
