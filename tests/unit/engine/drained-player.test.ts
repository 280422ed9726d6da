/**
 * A gap between sentences (docs/echo.md, "The barge gate"): the side panel's player runs dry when the next sentence is
 * late, and sends no level until it plays again. A panel that stops reporting mid-reply is taken for a starved page,
 * and the reply's loudest echo is expected at the microphone. After the player said it ran dry, the silence is the
 * reply's own, and a voice in the gap (where users like to come in) meets the floor, not that echo.
 */
import { describe, expect, it } from 'vitest';
import { FRAME_MS } from '../../../core/engine/audio-frames';
import { BargeDetector, type BargeDecision } from '../../../core/engine/barge-detector';

/**
 * 4 s of a reply whose level moves between 0.1 and 0.2, heard at the microphone at a quarter of it; then nothing for
 * 400 ms (told as a drain when `drained`), then a voice at 0.08. The voice's frames' decisions.
 */
function voiceInTheGap(drained: boolean): BargeDecision['kind'][] {
  const barge = new BargeDetector();
  let t = 10_000;
  for (let k = 0; k < 125; k++) {
    t += FRAME_MS;
    const level = 0.15 + 0.05 * Math.sin(k / 3);
    barge.onPlaybackLevel(t, level);
    barge.observeMic(t, 0.25 * level);
    barge.onFrame(t, 0.9, 0.25 * level);
  }
  if (drained) barge.playbackDrained();
  for (let k = 0; k < 12; k++) {
    t += FRAME_MS;
    barge.observeMic(t, 0.001);
    barge.onFrame(t, 0.05, 0.001);
  }
  const kinds: BargeDecision['kind'][] = [];
  for (let k = 0; k < 20; k++) {
    t += FRAME_MS;
    barge.observeMic(t, 0.08);
    kinds.push(barge.onFrame(t, 0.9, 0.08).kind);
  }
  return kinds;
}

describe('a voice in a gap between sentences', () => {
  it('after the player ran dry, the voice holds the reply', () => {
    expect(voiceInTheGap(true)).toContain('duck');
  });

  it('a panel silent without a word (a starved page) still expects the loudest echo, and the voice is under it', () => {
    expect(voiceInTheGap(false)).not.toContain('duck');
  });
});
