/**
 * The panel's playback levels reach the engine late and unevenly (its main thread draws the avatar; the offscreen
 * document shares that renderer thread), so each carries when it was heard (docs/echo.md, "When a level was heard")
 * and the engine places it there. The simulated reply's echo comes back 0.3 s late; its levels arrive up to 0.4 s late.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { FRAME_MS } from '../../../core/engine/audio-frames';
import { loadSilero, runScenario } from '../../fixtures/audio/conversation-sim';
import { TrackBuilder } from '../../fixtures/audio/make-audio';
import type { SileroVadJs as SileroVad } from '../../../models/vad/silero-js';

let vad: SileroVad;
beforeAll(async () => {
  vad = await loadSilero();
});

const REPLY = 'The harbour was quiet that night. The keeper climbed the stairs and lit the lamp at the top of the tower.';
const ECHO_DELAY_MS = 300;

async function reply(levelsStamped: boolean) {
  const t = new TrackBuilder().pause(500).say('Tell me about the lighthouse.').pause(200);
  const r = await runScenario(vad, {
    user: t.build(),
    segments: t.segments,
    echoGain: 0.3,
    echoDelayMs: ECHO_DELAY_MS,
    levelsArriveLateMs: 400,
    levelsStamped,
    wordTimedVoice: true,
    tailMs: 12_000,
    reply: () => REPLY,
  });
  return r.marks('echo-path')[0]!;
}

describe('playback levels placed when they were heard', () => {
  it('learns the echo path at its true delay, and tightly, although the levels arrive up to 0.4 s late', async () => {
    const path = await reply(true);
    // The simulated microphone hears the player one frame plus the echo delay later.
    expect(Math.abs(path.delayMs! - (ECHO_DELAY_MS + FRAME_MS))).toBeLessThanOrEqual(2 * FRAME_MS);
    expect(path.correlation).toBeGreaterThan(0.9);
  });

  it('placed on arrival instead (reports without a time), the same path is learned loosely or wrong', async () => {
    const path = await reply(false);
    const off = path.delayMs === undefined ? Infinity : Math.abs(path.delayMs - (ECHO_DELAY_MS + FRAME_MS));
    expect(off > 2 * FRAME_MS || (path.correlation ?? 0) < 0.9).toBe(true);
  });
});
