import { afterEach, describe, expect, it, vi } from 'vitest';
import { AudioBridge } from '../../../components/conversation/audio-bridge';

const chunk = { sampleRate: 24000, samples: new Float32Array(240), text: 'Hello.', final: false };

describe('AudioBridge: a chunk the player could not take', () => {
  let bridge: AudioBridge | null = null;
  afterEach(() => {
    bridge?.close();
    vi.restoreAllMocks();
  });

  it('is a warning, not an unhandled rejection, and the next chunk still reaches the player', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const handed: number[] = [];
    bridge = new AudioBridge();
    bridge.setTracing(true); // the trace also waits on the chunk's promise
    bridge.attach({
      speakChunk: (_pcm: Float32Array) => {
        handed.push(handed.length);
        return handed.length === 1
          ? Promise.reject(new Error('The voice could not start playing: Worklet loading timed out'))
          : Promise.resolve({ streamStarted: true });
      },
      pause: () => {},
      interrupt: () => {},
    } as never);
    bridge.chunk('7', chunk);
    bridge.chunk('7', chunk);
    await new Promise((r) => setTimeout(r, 20));
    process.off('unhandledRejection', onUnhandled);
    expect(unhandled).toEqual([]);
    expect(handed).toEqual([0, 1]);
    expect(warn).toHaveBeenCalledWith(
      expect.stringContaining('not played'),
      expect.stringContaining('Worklet loading timed out'),
    );
  });
});
