/**
 * The echo of a reply's end is not the user (docs/echo.md, "The echo of the reply's end"). In the room rig Chrome's
 * canceller suppressed the echo while the reply played and let its late tail through once the far end stopped, louder
 * than the coupling learned during the reply: that tail opened an utterance after the reply. Here the simulated
 * microphone does the same (suppressed echo while the player sounds, ten times more once it is silent, 1.1 s late),
 * real Silero hears it, and the oracle ASR hears the reply's own words in it (word-timed voice).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isEchoOfReplyEnd } from '../../../core/engine/backchannel';
import { resetTunables, setTunable } from '../../../core/tunables';
import { loadSilero, type ScenarioInput } from '../../fixtures/audio/conversation-sim';
import { lateTailRun, LIGHTHOUSE_REPLY } from '../../fixtures/audio/late-tail';
import type { SileroVadJs as SileroVad } from '../../../models/vad/silero-js';

let vad: SileroVad;
beforeAll(async () => {
  vad = await loadSilero();
});
afterEach(() => resetTunables('engine'));

const REPLY = LIGHTHOUSE_REPLY;

/** The user asks; the reply's echo comes back 1.1 s late, suppressed while it plays and loud once it stops. */
function lateTail(
  then?: { afterMs: number; say: string },
  echoHeardAs?: string,
  delays: { echoDelayMs: number; echoDelayWhenSilentMs?: number } = { echoDelayMs: 1100 },
  echoGainWhenSilent = 0.6,
  extra: Partial<ScenarioInput> = {},
) {
  return lateTailRun(vad, { then, echoHeardAs, delays, echoGainWhenSilent }, extra);
}

describe("the echo of the reply's end", () => {
  it('opens an utterance after the reply, but it is heard as the reply’s own words and dropped: no turn, no reply', async () => {
    const r = await lateTail();
    const ended = r.playback.find((p) => p.event.type === 'ended')!.at;
    // The scenario does what it says: the late tail got past the energy hold and opened an utterance.
    expect(r.marks('speech-start').filter((m) => m.at > ended).length).toBeGreaterThan(0);
    const echoTurn = r.transcribeCalls.find((c) => c.at > ended && !c.aborted);
    expect(echoTurn?.text).toMatch(/tower/);
    expect(r.marks('discarded').map((m) => m.reason)).toContain('own-echo');
    // Only the question got a reply (the echo's speculative one was dropped unheard).
    expect(new Set(r.speaks.map((s) => s.turnId)).size).toBe(1);
    expect(r.engine.messages.filter((m) => m.role === 'user')).toHaveLength(1);
    expect(r.events.filter((e) => e.type === 'caption' && e.role === 'user' && e.final)).toHaveLength(1);
  });

  it('heard as other words (a recogniser that mishears the tail): it follows the reply’s envelope, so it is still dropped', async () => {
    const r = await lateTail(undefined, 'Wzwzw jcals.');
    const ended = r.playback.find((p) => p.event.type === 'ended')!.at;
    expect(r.marks('speech-start').filter((m) => m.at > ended).length).toBeGreaterThan(0);
    const dropped = r.marks('discarded').filter((m) => m.reason === 'own-echo');
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped[0]!.likeness).toBeGreaterThanOrEqual(0.7);
    // The recogniser did hear other words in it (the speculative transcription ran): the words rule could not catch it.
    expect(r.transcribeCalls.some((c) => c.at > ended && c.text === 'Wzwzw jcals.')).toBe(true);
    expect(new Set(r.speaks.map((s) => s.turnId)).size).toBe(1);
    expect(r.engine.messages.filter((m) => m.role === 'user')).toHaveLength(1);
  });

  it('the user speaking right after the reply, over that tail, is a turn', async () => {
    // The reply ends ≈ 12.1 s into the run (the scenario above): the question begins just after it, in the late tail.
    for (const heardAs of [undefined, 'Wzwzw jcals.']) {
      const r = await lateTail({ afterMs: 10_300, say: 'What was at the top of the tower?' }, heardAs);
      const users = r.engine.messages.filter((m) => m.role === 'user').map((m) => m.text);
      expect(users, `echo heard as ${heardAs ?? 'the reply'}`).toEqual([
        'Tell me about the lighthouse.',
        'What was at the top of the tower?',
      ]);
    }
    const r = await lateTail({ afterMs: 10_300, say: 'What was at the top of the tower?' });
    const ended = r.playback.find((p) => p.event.type === 'ended')!;
    expect(ended.event).not.toHaveProperty('interrupted', true);
    const users = r.engine.messages.filter((m) => m.role === 'user').map((m) => m.text);
    expect(users).toEqual(['Tell me about the lighthouse.', 'What was at the top of the tower?']);
    // Both got their reply, and the second reply's own echo ("Okay.") became no turn either.
    expect(new Set(r.speaks.map((s) => s.turnId)).size).toBe(2);
    // It began within the time the echo may still arrive (delay plus reverb), so the rule was in play.
    const onset = r.marks('speech-start').find((m) => m.at > ended.at)!.at;
    expect(onset - ended.at).toBeLessThan(1100);
  });

  it('a tail that arrives later than the path learned during the reply (the capture queue grew) is still dropped', async () => {
    // A room run: the path said 0.93 s, the tail came 1.47 s after the last audible playback. At the learned delay the
    // playback is already silent over the tail, so only a search over longer lags can match its envelope.
    const r = await lateTail(undefined, 'Wzwzw jcals.', { echoDelayMs: 900, echoDelayWhenSilentMs: 1500 });
    const ended = r.playback.find((p) => p.event.type === 'ended')!.at;
    expect(r.marks('speech-start').filter((m) => m.at > ended).length).toBeGreaterThan(0);
    const dropped = r.marks('discarded').filter((m) => m.reason === 'own-echo');
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped[0]!.likeness).toBeGreaterThanOrEqual(0.7);
    expect(r.engine.messages.filter((m) => m.role === 'user')).toHaveLength(1);
    // The trace says at which lag it was judged: the tail's end after the playback's, past the learned 0.9 s.
    const endpoint = r.marks('endpoint').find((m) => m.turnId === dropped[0]!.turnId)!;
    expect(endpoint.echoEndLagMs).toBeGreaterThan(1200);
    // The trace's scan over every lag finds the tail there too (it includes the end-aligned lags, so r is no lower).
    expect(endpoint.echoScanLagMs).toBeGreaterThan(1200);
    expect(endpoint.echoScanR).toBeGreaterThanOrEqual(endpoint.echoLikeness!);
  });

  it('with that longer search, a question right after the reply, over the late tail, is still a turn', async () => {
    for (const afterMs of [10_300, 10_800, 11_300]) {
      const r = await lateTail({ afterMs, say: 'What was at the top of the tower?' }, 'Wzwzw jcals.', {
        echoDelayMs: 900,
        echoDelayWhenSilentMs: 1500,
      });
      const users = r.engine.messages.filter((m) => m.role === 'user').map((m) => m.text);
      expect(users, `asked ${afterMs} ms after the first question`).toEqual([
        'Tell me about the lighthouse.',
        'What was at the top of the tower?',
      ]);
    }
  });

  it('a short word of the user’s soon after the reply, with no loud tail, is a turn: it does not follow the reply', async () => {
    // A burst in silence looks like any burst of the reply at some lag; compared from the end of the playback on, the
    // quiet before the word does not follow the reply's words (tested against chance matches: red when only the
    // utterance itself is compared, at the learned delay or over every lag).
    for (const say of ['Yes.', 'Stop.'])
      for (const afterMs of [10_400, 11_200, 11_600]) {
        const r = await lateTail({ afterMs, say }, 'Wzwzw jcals.', { echoDelayMs: 900, echoDelayWhenSilentMs: 1500 }, 0.03);
        const users = r.engine.messages.filter((m) => m.role === 'user').map((m) => m.text);
        expect(users, `"${say}" ${afterMs} ms after the question`).toEqual(['Tell me about the lighthouse.', say]);
      }
  });

  it('the same words said once the echo is over are a turn (the rule holds only right after a reply)', async () => {
    const r = await lateTail({ afterMs: 14_300, say: 'The top of the tower.' });
    const users = r.engine.messages.filter((m) => m.role === 'user').map((m) => m.text);
    expect(users).toEqual(['Tell me about the lighthouse.', 'The top of the tower.']);
  });
});

// docs/echo.md, "Matching the reply's audio": the envelope rule is off here (a likeness of 1 is never reached), and the
// recogniser hears other words in the tail, so only the reply's exact audio can tell the tail from the user.
describe("the echo of the reply's end, found by the reply's audio", () => {
  const late = { echoDelayMs: 900, echoDelayWhenSilentMs: 1500 };

  it('the tail is dropped as the reply’s own (red without the reply’s audio)', async () => {
    setTunable('engine.echoTailMinLikeness', 1);
    for (const replyAudio of [true, false]) {
      const r = await lateTail(undefined, 'Wzwzw jcals.', late, 0.6, { replyAudio });
      const ended = r.playback.find((p) => p.event.type === 'ended')!.at;
      expect(r.marks('speech-start').filter((m) => m.at > ended).length).toBeGreaterThan(0);
      const users = r.engine.messages.filter((m) => m.role === 'user');
      if (!replyAudio) {
        expect(users.length, 'without the reply audio the tail is a turn').toBeGreaterThan(1);
        continue;
      }
      const dropped = r.marks('discarded').filter((m) => m.reason === 'own-echo');
      expect(dropped.length).toBeGreaterThan(0);
      const endpoint = r.marks('endpoint').find((m) => m.turnId === dropped[0]!.turnId)!;
      expect(endpoint.echoMatchHead).toBeGreaterThanOrEqual(25);
      expect(users).toHaveLength(1);
    }
  });

  it('a question over the tail, or a short word after the reply, is still a turn', async () => {
    setTunable('engine.echoTailMinLikeness', 1);
    const asks: [string, number, number][] = [
      ['What was at the top of the tower?', 10_300, 0.6],
      ['What was at the top of the tower?', 10_800, 0.6],
      ['Yes.', 10_400, 0.03],
      ['Stop.', 11_200, 0.03],
    ];
    for (const [say, afterMs, tail] of asks) {
      const r = await lateTail({ afterMs, say }, 'Wzwzw jcals.', late, tail);
      const users = r.engine.messages.filter((m) => m.role === 'user').map((m) => m.text);
      expect(users, `"${say}" ${afterMs} ms after the question`).toEqual(['Tell me about the lighthouse.', say]);
    }
  });
});

describe('isEchoOfReplyEnd', () => {
  const spoken = REPLY;
  it('the last words of the reply are its echo', () => {
    expect(isEchoOfReplyEnd('the top of the tower', spoken)).toBe(true);
  });
  it('words from the reply’s beginning are not: an echo comes back from its end', () => {
    expect(isEchoOfReplyEnd('the harbour was quiet', spoken)).toBe(false);
  });
  it('a question that reuses the reply’s words adds its own: not an echo', () => {
    expect(isEchoOfReplyEnd('what was at the top of the tower', spoken)).toBe(false);
    expect(isEchoOfReplyEnd('tower', spoken)).toBe(false);
    expect(isEchoOfReplyEnd('the tower top', spoken)).toBe(false);
  });
  it('a one-word reply: its one word is its echo', () => {
    expect(isEchoOfReplyEnd('Okay.', 'Okay.')).toBe(true);
    expect(isEchoOfReplyEnd('Sure.', 'Okay.')).toBe(false);
  });
});
