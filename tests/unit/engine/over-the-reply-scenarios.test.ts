/**
 * Speech over the reply, on real Silero VAD (docs/echo.md): the reply's own echo never interrupts it; listener tokens
 * ("mm-hm", "yeah"), short or long, hold it at most and it goes on to its end; a question, or "stop", cuts it. Each
 * test is the long-story scenario (tests/fixtures/audio/story.ts) with something said, or only echoed, over the reply.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FRAME_MS } from '../../../core/engine/audio-frames';
import { engineTunables as T, resetTunables, setTunable } from '../../../core/tunables';
import type { SileroVadJs as SileroVad } from '../../../models/vad/silero-js';
import { DEFAULT_LATENCY, loadSilero, type ScenarioResult } from '../../fixtures/audio/conversation-sim';
import { story } from '../../fixtures/audio/story';

let vad: SileroVad;
beforeAll(async () => {
  vad = await loadSilero();
});
afterEach(() => resetTunables('engine'));

describe('speech over the reply (real Silero VAD)', () => {
  it('echo of its own voice alone never barges in', async () => {
    const { r } = await story(vad, { echoGain: 0.5, tailMs: 16000 });
    const played = r.first('first-audio');
    expect(r.marks('barge-in')).toHaveLength(0);
    expect(r.marks('speech-start').filter((m) => m.at > played)).toHaveLength(0);
    const done = r.first('done');
    expect(done).toBeGreaterThan(played + 10000); // the whole story played
    expect(r.transcribeCalls).toHaveLength(1);
    expect(r.speaks).toHaveLength(4);
  });

  // docs/echo.md, "Backchannels": listener tokens over the reply lower it for a moment; it goes on to its end, and
  // they are not a turn. A short word that wants the floor still stops it.
  // Whether the burst reaches the barge gate at all is Silero's call on espeak's voice: the hum and "Right." stay
  // under it here, "Yeah." lowers the reply and is released by its words.
  for (const [burst, ducks] of [
    ['Mm-hm.', false],
    ['Yeah.', true],
    ['Right.', false],
  ] as const) {
    it(`"${burst}" over the reply: ${ducks ? 'ducked, released, ' : ''}played to its end, not a turn`, async () => {
      const { t, r } = await story(vad, { then: burst, echoGain: 0.3, tailMs: 16000 });
      const played = r.first('first-audio');
      expect(played).toBeLessThan(t.segments[1]!.startMs);
      expect(r.marks('barge-tentative')).toHaveLength(ducks ? 1 : 0);
      expect(r.marks('barge-released')).toHaveLength(ducks ? 1 : 0);
      expect(r.marks('barge-in')).toHaveLength(0);
      expect(r.first('done')).toBeGreaterThan(played + 10000); // the whole story played
      expect(r.respondCalls).toHaveLength(1);
      expect(r.speaks).toHaveLength(4);
    });
  }

  /** The reading of the burst's words that cut it: the last transcription before the cut, one ASR latency earlier. */
  function readingThatCut(r: ScenarioResult) {
    const cut = r.first('barge-in');
    const reading = r.transcribeCalls.filter((c) => c.at <= cut).at(-1)!;
    expect(cut - reading.at).toBe(DEFAULT_LATENCY.asrMs);
    return reading;
  }

  it('a long question without a pause interrupts once it has lasted, at the first reading of its words', async () => {
    const { r } = await story(vad, { then: 'What about the second dragon and the old village in the story?', echoGain: 0.3 });
    expect(r.marks('barge-in')).toHaveLength(1);
    expect(r.marks('barge-in')[0]!.byWords).toBe(1);
    expect(r.marks('barge-released')).toHaveLength(0);
    // The first reading after the onset, once it had lasted the confirm, and its words asked for the floor.
    const onset = r.first('barge-onset');
    const reading = readingThatCut(r);
    expect(r.transcribeCalls.filter((c) => c.at > onset && c.at < reading.at)).toEqual([]);
    expect(reading.at - onset).toBeGreaterThanOrEqual(T.bargeConfirmFrames * FRAME_MS);
  });

  // docs/echo.md, "A backchannel longer than the confirm": spoken slowly, these last longer than the confirm
  // (38 and 30 voiced frames over the gate here, with the reply held); their words keep the reply held, and it
  // goes on when the burst ends.
  for (const [burst, wordsPerMinute] of [
    ['Mm-hm.', 40],
    ['yeah yeah right', 120],
  ] as const) {
    const input = { then: burst, thenWordsPerMinute: wordsPerMinute, echoGain: 0.3, tailMs: 16000 };

    it(`"${burst}" longer than the confirm holds the reply, which then goes on to its end; not a turn`, async () => {
      const { r } = await story(vad, input);
      expect(r.marks('barge-tentative')).toHaveLength(1);
      expect(r.marks('barge-in')).toHaveLength(0);
      const released = r.marks('barge-released');
      expect(released).toHaveLength(1);
      expect(released[0]!.voicedFrames).toBeGreaterThan(T.bargeConfirmFrames);
      expect(r.first('done')).toBeGreaterThan(r.first('first-audio') + 10000);
      expect(r.respondCalls).toHaveLength(1);
      expect(r.speaks).toHaveLength(4);
    });

    it(`"${burst}" interrupts by its length when its words are not read (the check this rests on)`, async () => {
      expect(setTunable('engine.bargeBackchannelMaxFrames', T.bargeConfirmFrames)).toEqual({ ok: true });
      const { r } = await story(vad, input);
      expect(r.marks('barge-in')).toHaveLength(1);
      expect(r.marks('barge-in')[0]!.byWords).toBe(0);
    });
  }

  it('listener tokens that run on into a question hold the reply, then its words stop it', async () => {
    const { r } = await story(vad, { then: 'yeah yeah so what happened then', thenWordsPerMinute: 140, echoGain: 0.3 });
    expect(r.marks('barge-tentative')).toHaveLength(1);
    expect(r.marks('barge-released')).toHaveLength(0);
    expect(r.marks('barge-in')).toHaveLength(1);
    expect(r.marks('barge-in')[0]!.byWords).toBe(1);
    // At least one reading over the burst heard only listener tokens and let it be; a later one cut it.
    const onset = r.first('barge-onset');
    const reading = readingThatCut(r);
    const before = r.transcribeCalls.filter((c) => c.at > onset && c.at < reading.at);
    expect(before.length).toBeGreaterThanOrEqual(1);
    expect(before.every((c) => /^(yeah\s*)+$/.test(c.text))).toBe(true);
    expect(reading.text).not.toMatch(/^(yeah\s*)+$/);
  });

  it('"Stop." alone over the reply is short, but its word stops the reply', async () => {
    const { r } = await story(vad, { then: 'Stop.', echoGain: 0.3 });
    expect(r.marks('barge-tentative')).toHaveLength(1);
    expect(r.marks('barge-released')).toHaveLength(0);
    expect(r.marks('barge-in')).toHaveLength(1);
    expect(r.marks('barge-in')[0]!.byWords).toBe(1); // too short to interrupt by its length: its word did
    expect(r.marks('interrupted').map((m) => m.reason)).toContain('barge-in');
  });

  // docs/echo.md: in the room rig the echo once came back over a second late, past the look-back window, and its
  // tail opened a user turn after every reply.
  for (const echoDelayMs of [300, 1100]) {
    it(`an echo ${echoDelayMs} ms late: no barge-in, and its tail after the reply opens no utterance`, async () => {
      const { r } = await story(vad, { echoGain: 0.5, echoDelayMs, tailMs: 18000 });
      const played = r.first('first-audio');
      expect(r.marks('barge-in')).toHaveLength(0);
      expect(r.marks('speech-start').filter((m) => m.at > played)).toHaveLength(0);
      expect(r.first('done')).toBeGreaterThan(played + 10000); // the whole story played
      expect(r.transcribeCalls).toHaveLength(1);
    });
  }
});

// docs/echo.md, "Matching a burst over the reply": the echo gets louder halfway through the reply (the canceller lost
// its convergence), so it ducks the reply, and the recogniser hears a question in it. The reply's own audio is found
// in the burst, so it is not read as words and the reply plays on; a real question over the same echo still cuts it.
describe('a burst over the reply matched against the reply audio (real Silero VAD)', () => {
  const louderEcho = { echoGain: 0.15, echoGainFrom: { atMs: 6000, gain: 0.6 }, wordTimedVoice: true, tailMs: 24000 };
  const misheard = { ...louderEcho, echoHeardAs: 'What about the weather tomorrow?' };

  it('the echo that ducks the reply is found in its audio: released without a reading of its words', async () => {
    const { r } = await story(vad, misheard);
    const released = r.marks('barge-released');
    const found = released.filter((m) => (m.echoScore ?? 0) >= T.bargeEchoMatchMinScore);
    // Every hold up to the first burst the match could not place was the echo, found, and let go.
    const firstCut = r.marks('barge-in')[0]?.at ?? Infinity;
    expect(found.length).toBeGreaterThanOrEqual(3);
    expect(released.filter((m) => m.at < firstCut)).toEqual(found.filter((m) => m.at < firstCut));
    // Found by its audio, so the recogniser was never asked about those bursts.
    const lastFound = found.at(-1)!.at;
    const readings = r.transcribeCalls.filter((c) => c.at > r.first('first-audio') && c.at <= lastFound);
    expect(readings).toEqual([]);
  });

  it('without the match, the misheard echo cuts the reply (the case this guards)', async () => {
    expect(setTunable('engine.bargeEchoMatchMinScore', 0)).toEqual({ ok: true });
    const { r } = await story(vad, misheard);
    const cut = r.marks('barge-in');
    expect(cut).toHaveLength(1);
    expect(cut[0]!.byWords).toBe(1);
    // The first hold, which the match let go above, is now cut by the words heard in it.
    expect(cut[0]!.at).toBeLessThan(r.first('barge-tentative') + 1000);
  });

  // The user's voice over an echo as loud as Chrome's canceller left it in the room's worst case (10 dB under the
  // voice): the reply's audio is in the burst, but it does not explain it.
  it('"Stop." over a loud echo is not the echo: its word cuts the reply', async () => {
    const { r } = await story(vad, { echoGain: 0.3, then: 'Stop.' });
    const cut = r.marks('barge-in');
    expect(cut).toHaveLength(1);
    expect(cut[0]!.byWords).toBe(1);
    expect(cut[0]!.echoScore).toBeLessThan(T.bargeEchoMatchMinScore);
  });
});
