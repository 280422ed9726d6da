/**
 * The tail as loud as the room (docs/echo.md): while the reply plays Chrome's canceller turns its echo down, and once
 * the far end stops it lets the late tail through about as loud as the unprocessed microphone hears it. The hold after
 * a reply then also asks for a frame over the echo the unprocessed track's path expects. Here the recogniser hears
 * other words in the tail and the envelope and audio matches are off, so only that hold keeps the tail from a turn.
 * Real Silero on both tracks (conversation-sim.ts); the speakers ~10 dB under the user (echo gain 0.3).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetTunables, setTunable } from '../../../core/tunables';
import { loadSilero } from '../../fixtures/audio/conversation-sim';
import { lateTailRun } from '../../fixtures/audio/late-tail';
import type { SileroVadJs } from '../../../models/vad/silero-js';

let vad: SileroVadJs;
let rawVad: SileroVadJs;
beforeAll(async () => {
  vad = await loadSilero();
  rawVad = await loadSilero();
});
afterEach(() => resetTunables('engine'));

/** The question, its reply (echo 1.1 s late: 0.03 after the canceller while it plays, 0.3 once it stops), then `then`. */
function released(then?: { afterMs: number; say: string }) {
  setTunable('engine.echoTailMinLikeness', 1);
  setTunable('engine.echoMatchMinScore', 0);
  const tail = { then, echoHeardAs: 'Wzwzw jcals.', echoGainWhenSilent: 0.3 };
  return lateTailRun(vad, tail, { unprocessed: { echoGain: 0.3, vad: rawVad } });
}

const users = (r: Awaited<ReturnType<typeof released>>) => r.engine.messages.filter((m) => m.role === 'user').map((m) => m.text);

describe('the tail the canceller lets through once the reply stops', () => {
  it('opens no turn: it is no louder than the echo the unprocessed track expects', async () => {
    const r = await released();
    expect(users(r)).toEqual(['Tell me about the lighthouse.']);
  });

  it('without that hold it opens a turn (the recogniser hears words in it)', async () => {
    setTunable('engine.echoTailFromUnprocessed', 0);
    const r = await released();
    expect(users(r).length).toBeGreaterThan(1);
  });

  it('a question or a short word of the user right after the reply, while the tail still sounds, is a turn', async () => {
    for (const [say, afterMs] of [
      ['What was at the top of the tower?', 10_300],
      ['Yes.', 10_400],
      ['Stop.', 11_200],
    ] as const) {
      const r = await released({ afterMs, say });
      const ended = r.playback.find((p) => p.event.type === 'ended')!.at;
      const onset = r.marks('speech-start').find((m) => m.at > ended);
      expect(users(r), `"${say}" ${afterMs} ms after the question`).toEqual(['Tell me about the lighthouse.', say]);
      // It opened while the unprocessed track still expected the reply's echo: the hold was in force.
      expect(onset?.releasedEchoRms, `"${say}"`).toBeGreaterThan(0);
    }
  });
});
