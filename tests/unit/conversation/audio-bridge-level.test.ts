// The side panel's level reports carry when the level is heard, as epoch ms (docs/echo.md, "When a level was heard").
import { expect, it } from 'vitest';
import { AudioBridge } from '../../../components/conversation/audio-bridge';
import { PLAYBACK_CHANNEL_NAME, PlaybackMessageSchema } from '../../../core/protocol';

it('a level goes out with its heard time on the shared epoch clock, and without one when the player gave none', async () => {
  const got: unknown[] = [];
  const listen = new BroadcastChannel(PLAYBACK_CHANNEL_NAME);
  listen.onmessage = (e: MessageEvent) => got.push(e.data);
  const bridge = new AudioBridge();
  try {
    bridge.level(0.12, undefined, 1234.5);
    bridge.level(0.05);
    await new Promise((r) => setTimeout(r, 20));
    expect(got).toEqual([
      { type: 'level', rms: 0.12, at: performance.timeOrigin + 1234.5 },
      { type: 'level', rms: 0.05 },
    ]);
    for (const m of got) expect(PlaybackMessageSchema.safeParse(m).success).toBe(true);
  } finally {
    listen.close();
    bridge.close();
  }
});
