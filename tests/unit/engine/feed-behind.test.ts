/**
 * A microphone feed behind real time (docs/echo.md, "Which clock"): on a loaded machine the offscreen document handed
 * the engine frames ~2 s after their capture, so the reply's last seconds of echo were judged after the reply had
 * ended. Whether a frame can hold the reply's echo depends on when it was captured against when the playback was
 * heard, not on when the engine got to it. Real Silero on espeak speech (conversation-sim.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSilero, runScenario } from '../../fixtures/audio/conversation-sim';
import { TrackBuilder } from '../../fixtures/audio/make-audio';
import type { SileroVadJs as SileroVad } from '../../../models/vad/silero-js';

let vad: SileroVad;
beforeAll(async () => {
  vad = await loadSilero();
});

const LONG = 'The harbour was quiet that night. The keeper climbed the stairs and lit the lamp at the top of the tower.';
const SHORT = 'The harbour was quiet that night.';

async function reply(feedLagMs: number, echoGain: number, text = LONG) {
  const t = new TrackBuilder().pause(500).say('Tell me about the lighthouse.').pause(200);
  return runScenario(vad, {
    user: t.build(),
    segments: t.segments,
    echoGain,
    feedLagMs,
    wordTimedVoice: true,
    tailMs: 14_000,
    reply: () => text,
  });
}

describe('a feed behind real time', () => {
  // A small grid, not one case: how far behind, how loud the echo the engine hears, a reply too short for the echo
  // path to be learned before it ends (as in the room run that found this) and a longer one.
  for (const feedLagMs of [500, 1000, 2000, 3000])
    for (const [echoGain, text] of [
      [0.05, LONG],
      [0.3, LONG],
      [0.05, SHORT],
      [0.3, SHORT],
    ] as const) {
      it(`frames of the reply's echo handled ${feedLagMs} ms late open no turn after it (echo gain ${echoGain}, ${text.length} chars)`, async () => {
        const r = await reply(feedLagMs, echoGain, text);
        // The user's question is answered once and the reply plays to its end...
        expect(r.marks('done')).toHaveLength(1);
        expect(r.respondCalls).toHaveLength(1);
        // ...and nothing the microphone heard while it played opens an utterance once the engine catches up.
        const done = r.first('done');
        expect(r.marks('speech-start').filter((m) => m.at > done)).toHaveLength(0);
        expect(r.marks('endpoint')).toHaveLength(1);
      });
    }

  for (const feedLagMs of [0, 2000])
    it(`a question a second after the reply is heard with the feed ${feedLagMs} ms behind`, async () => {
      const t = new TrackBuilder().pause(500).say('Tell me about the lighthouse.').pause(7000).say('Who built it?').pause(200);
      const r = await runScenario(vad, {
        user: t.build(),
        segments: t.segments,
        echoGain: 0.3,
        feedLagMs,
        wordTimedVoice: true,
        tailMs: 12_000,
        reply: () => SHORT,
      });
      const done = r.marks('done');
      // The reply to the first question ended over a second before the second question began.
      expect(done.length).toBeGreaterThanOrEqual(1);
      expect(t.segments[1]!.startMs - done[0]!.at).toBeGreaterThan(1000);
      expect(r.respondCalls.map((c) => c.text)).toEqual(['Tell me about the lighthouse.', 'Who built it?']);
    });
});
