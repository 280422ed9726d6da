/**
 * End-to-end policy scenarios: real espeak/sox audio → real Silero v5 (onnxruntime-node) → DuplexEngine, on a manual
 * clock with fake stages of known latency. Each test asserts the event timeline (order and clock windows derived
 * from the tunables), not only the end state.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FRAME_MS } from '../../../core/engine/audio-frames';
import { LINES } from '../../../core/engine/lines';
import type { BackgroundTask, EngineEvent, TurnStage, UserTurn } from '../../../core/engine/types';
import { engineTunables as T, resetTunables, setTunable } from '../../../core/tunables';
import { DEFAULT_LATENCY, loadSilero, runScenario, type ScenarioResult } from '../../fixtures/audio/conversation-sim';
import { TrackBuilder, keyboardTyping, noise } from '../../fixtures/audio/make-audio';
import type { SileroVadJs as SileroVad } from '../../../models/vad/silero-js';
import { ManualClock } from '../../fixtures/audio/manual-clock';
import { LONG_REPLY } from '../../fixtures/audio/story';

let vad: SileroVad;
beforeAll(async () => {
  vad = await loadSilero();
});
afterEach(() => resetTunables('engine'));

/** Silero's probability decays a few frames after the voice stops; onset needs `onsetFrames` frames. */
const VAD_LAG_MS = 6 * FRAME_MS;

function order(r: ScenarioResult, names: TurnStage[]): number[] {
  const times = names.map((n) => r.first(n));
  for (let i = 1; i < times.length; i++)
    expect(times[i], `${names[i]} after ${names[i - 1]}`).toBeGreaterThanOrEqual(times[i - 1]!);
  return times;
}

function between(value: number, lo: number, hi: number, what: string): void {
  expect(value, `${what} ≥ ${lo}`).toBeGreaterThanOrEqual(lo);
  expect(value, `${what} ≤ ${hi}`).toBeLessThanOrEqual(hi);
}

describe('duplex engine scenarios (real Silero VAD)', () => {
  it('plain turn: endpoint after a complete phrase, speculative reply, first sentence early', async () => {
    const t = new TrackBuilder().pause(600).say('What is the capital of France?').pause(300);
    const seg = t.segments[0]!;
    const r = await runScenario(vad, {
      user: t.build(),
      segments: t.segments,
      echoGain: 0.2,
      reply: () => 'The capital of France is Paris. It sits on the Seine.',
    });
    const [start, eos, , endpoint, firstSpeak, played, done] = order(r, [
      'speech-start',
      'end-of-speech',
      'tentative-endpoint',
      'endpoint',
      'first-speak',
      'first-audio',
      'done',
    ]);
    between(start!, seg.startMs - 2 * FRAME_MS, seg.startMs + VAD_LAG_MS, 'onset');
    between(eos!, seg.endMs - 2 * FRAME_MS, seg.endMs + VAD_LAG_MS, 'end of speech');
    between(endpoint! - eos!, T.endpointCompleteMs, T.endpointCompleteMs + FRAME_MS, 'endpoint silence');
    // Speculation started ASR + LLM at the tentative endpoint, so the first sentence beats the serial path.
    const serial = DEFAULT_LATENCY.asrMs + DEFAULT_LATENCY.llmFirstTokenMs + 5 * DEFAULT_LATENCY.llmTokenMs;
    expect(firstSpeak! - endpoint!).toBeLessThan(serial);
    between(played! - firstSpeak!, DEFAULT_LATENCY.ttsMs, DEFAULT_LATENCY.ttsMs + FRAME_MS, 'tts → playback');
    expect(done).toBeGreaterThan(played!);
    expect(r.transcribeCalls).toHaveLength(1);
    expect(r.respondCalls.map((c) => c.text)).toEqual(['What is the capital of France?']);
    expect(r.respondCalls[0]!.localTime).toContain('2026');
    expect(r.speaks.map((s) => s.sentence)).toEqual(['The capital of France is Paris.', 'It sits on the Seine.']);
    // Once, after the last sentence was handed to TTS and before the reply is done.
    expect(r.audioComplete.map((c) => c.turnId)).toEqual([r.speaks[0]!.turnId]);
    between(r.audioComplete[0]!.at, r.speaks.at(-1)!.at, r.first('done'), 'audio complete');
    expect(r.engine.messages).toEqual([
      { role: 'user', text: 'What is the capital of France?' },
      { role: 'assistant', text: 'The capital of France is Paris. It sits on the Seine.' },
    ]);
    expect(states(r.events)).toEqual(['listening', 'thinking', 'speaking', 'listening', 'idle']);
  });

  it('mid-thought pause after "and" does not end the turn', async () => {
    const t = new TrackBuilder()
      .pause(500)
      .say('I want to plan a trip and')
      .pause(900)
      .say('maybe visit Lisbon in May.')
      .pause(200);
    const [first, second] = t.segments as [(typeof t.segments)[0], (typeof t.segments)[0]];
    const r = await runScenario(vad, { user: t.build(), segments: t.segments });
    // A tentative endpoint in the pause, discarded when the user resumed; no endpoint until after the second half.
    // (Silero may also dip inside a phrase; such a tentative endpoint is discarded a frame or two later.)
    const inPause = r.marks('tentative-endpoint').filter((m) => m.at > first!.endMs && m.at < second!.startMs);
    expect(inPause).toHaveLength(1);
    const discarded = r.marks('speculation-discarded').find((m) => m.turnId === inPause[0]!.turnId)!;
    between(discarded.at, second!.startMs, second!.startMs + VAD_LAG_MS, 'speculation discarded on resume');
    expect(r.marks('endpoint')).toHaveLength(1);
    between(r.first('end-of-speech'), second!.endMs - 2 * FRAME_MS, second!.endMs + VAD_LAG_MS, 'end of speech');
    expect(r.respondCalls.map((c) => c.text)).toEqual(['I want to plan a trip and maybe visit Lisbon in May.']);
  });

  it('resume after the endpoint but before any reply audio merges both halves into one turn', async () => {
    const t = new TrackBuilder().pause(500).say('Tell me about Lisbon.').pause(620).say('And its old trams.').pause(200);
    const [firstSeg, secondSeg] = t.segments as [(typeof t.segments)[0], (typeof t.segments)[0]];
    const r = await runScenario(vad, {
      user: t.build(),
      segments: t.segments,
      latency: { llmFirstTokenMs: 450 },
      reply: (turn) => (turn.text.includes('trams') ? 'Lisbon trams are famous. Line 28 is the classic.' : 'Lisbon is lovely.'),
    });
    const endpoints = r.marks('endpoint');
    expect(endpoints).toHaveLength(2);
    const merge = r.marks('merge');
    expect(merge).toHaveLength(1);
    between(merge[0]!.at, endpoints[0]!.at, endpoints[0]!.at + T.mergeWindowMs, 'merge within window');
    between(merge[0]!.at, secondSeg!.startMs, secondSeg!.startMs + VAD_LAG_MS, 'merge at resumption');
    expect(endpoints[0]!.at).toBeGreaterThan(firstSeg!.endMs);
    // Nothing of the first (unheard) reply was played; the answered turn holds both halves.
    const firstPlayback = r.playback.find((p) => p.event.type === 'started');
    expect(firstPlayback!.at).toBeGreaterThan(endpoints[1]!.at);
    expect(r.speaks.every((s) => !s.sentence.startsWith('Lisbon is lovely'))).toBe(true);
    expect(r.respondCalls.at(-1)!.text).toBe('Tell me about Lisbon. And its old trams.');
    expect(r.engine.messages.filter((m) => m.role === 'user')).toEqual([
      { role: 'user', text: 'Tell me about Lisbon. And its old trams.' },
    ]);
    // One line per user turn: the merged turn's line says which earlier partial line it replaces.
    const userLines = r.events.flatMap((e) => (e.type === 'caption' && e.role === 'user' ? [e] : []));
    const merged = r.marks('merge')[0]!.turnId;
    expect(userLines.map((c) => [c.text, c.turnId, c.replaces])).toEqual([
      ['Tell me about Lisbon.', merged, undefined],
      ['Tell me about Lisbon. And its old trams.', endpoints[1]!.turnId, merged],
    ]);
    expect(endpoints[1]!.turnId).not.toBe(merged);
  });

  it('barge-in during the reply aborts generation and playback together and keeps the pre-roll', async () => {
    const t = new TrackBuilder()
      .pause(500)
      .say('Tell me a long story about a dragon.')
      .pause(3200)
      .say('Stop, wait a second.')
      .pause(200);
    const barge = t.segments[1]!;
    const r = await runScenario(vad, {
      user: t.build(),
      segments: t.segments,
      echoGain: 0.3,
      reply: (turn) => (turn.turnId === 't1' || turn.text.includes('dragon') ? LONG_REPLY : 'Okay, I am listening.'),
    });
    const played = r.first('first-audio');
    expect(played).toBeLessThan(barge.startMs);
    const onset = r.first('barge-onset');
    const cut = r.first('barge-in');
    between(onset, barge.startMs - 2 * FRAME_MS, barge.startMs + VAD_LAG_MS, 'barge onset');
    // The reply was lowered as soon as the speech counted (bargeFrames), and cut once it had lasted or its words
    // asked for the floor ("Stop," alone is short: its transcript decides).
    const ducked = r.first('barge-tentative');
    expect(ducked - onset).toBe(T.bargeFrames * FRAME_MS);
    between(cut - onset, T.bargeConfirmFrames * FRAME_MS, (T.bargeConfirmFrames + T.bargeReleaseFrames) * FRAME_MS, 'cut');
    expect(r.marks('barge-released')).toHaveLength(0);
    // The trace says which rule cut it (the room sweep reports it): "Stop," then a breath, so its words did.
    expect(r.marks('barge-in')[0]!.byWords).toBe(1);
    // Playback of the interrupted reply ends within one frame of the abort; no sentence of it is spoken later.
    const ended = r.playback.find((p) => p.event.type === 'ended' && p.event.turnId === 't1')!;
    between(ended.at, cut, cut + FRAME_MS, 'playback stopped');
    expect(r.speaks.filter((s) => s.turnId === 't1' && s.at > cut)).toHaveLength(0);
    // Its text was all synthesised before the cut (playback still running), and nothing is announced after it.
    expect(r.audioComplete.filter((c) => c.turnId === 't1' && c.at > cut)).toEqual([]);
    const interrupted = r.engine.messages.find((m) => m.role === 'assistant' && m.text.endsWith('[interrupted]'));
    expect(interrupted).toBeDefined();
    // The next turn heard the whole interruption, from its first word (pre-roll).
    expect(r.respondCalls.at(-1)!.text).toBe('Stop, wait a second.');
    expect(r.respondCalls.at(-1)!.history.at(-1)!.text).toMatch(/\[interrupted\]$/);
  });

  it('keyboard typing, pink and brown noise produce no turn', async () => {
    const t = new TrackBuilder()
      .pause(300)
      .add(keyboardTyping(4))
      .add(noise('pinknoise', 3, 0.15))
      .add(noise('brownnoise', 3, 0.3))
      .pause(300);
    const r = await runScenario(vad, { user: t.build(), segments: [], tailMs: 1500 });
    expect(r.marks('endpoint')).toHaveLength(0);
    expect(r.transcribeCalls).toHaveLength(0);
    expect(r.respondCalls).toHaveLength(0);
    expect(states(r.events)).toEqual(['listening', 'idle']);
  });

  it('a long monologue with sentence pauses is one turn; the cap forces an endpoint', async () => {
    const sentences = [
      'Yesterday I walked along the river for almost two hours.',
      'The weather was cold but the light on the water was beautiful.',
      'I stopped at a small cafe and ordered a hot chocolate.',
      'Then I took the long way home through the park.',
    ];
    const t = new TrackBuilder().pause(500);
    sentences.forEach((s, i) => (i === 0 ? t.say(s) : t.pause(300).say(s)));
    t.pause(200);
    const user = t.build();
    const r = await runScenario(vad, { user, segments: t.segments, reply: () => 'That sounds lovely.' });
    expect(r.marks('endpoint')).toHaveLength(1);
    expect(r.first('endpoint')).toBeGreaterThan(t.segments.at(-1)!.endMs);
    // Sentence pauses may start a speculative reply; it is discarded unheard when the user goes on.
    expect(r.respondCalls.at(-1)!.text).toBe(sentences.join(' '));
    expect(new Set(r.speaks.map((s) => s.turnId))).toEqual(new Set([r.marks('endpoint')[0]!.turnId]));
    expect(r.engine.messages.filter((m) => m.role === 'user')).toHaveLength(1);

    expect(setTunable('engine.maxUtteranceMs', 5000)).toEqual({ ok: true });
    const capped = await runScenario(vad, { user, segments: t.segments, reply: () => 'Go on.' });
    const forced = capped.marks('endpoint')[0]!;
    expect(forced.forced).toBe(true);
    between(forced.at - capped.first('speech-start'), 5000, 5000 + FRAME_MS, 'forced endpoint at the cap');
  });

  it('tool turn: holding line now, result at the next silence, one background task at a time', async () => {
    const t = new TrackBuilder()
      .pause(500)
      .say("What's the weather in Tokyo?")
      .pause(1600)
      .say('Also, is it going to rain in Paris?')
      .pause(200);
    const clockOf: { clock?: ManualClock } = {};
    let runs = 0;
    const route = (turn: UserTurn): BackgroundTask | null =>
      /weather|rain/i.test(turn.text)
        ? {
            holdingLine: 'Let me check the weather.',
            run: async () => {
              runs++;
              await sleepOn(clockOf, 2500);
              return "It's 20 degrees and sunny in Tokyo.";
            },
          }
        : null;
    const r = await runScenario(vad, {
      user: t.build(),
      segments: t.segments,
      route,
      tailMs: 9000,
      reply: () => 'Paris looks dry today.',
      onClock: (c) => (clockOf.clock = c),
    });
    const [holdingAt, bgStart, bgDone, delivered] = order(r, [
      'holding-line',
      'background-start',
      'background-done',
      'background-delivered',
    ]);
    expect(r.speaks[0]!.sentence).toBe('Let me check the weather.');
    between(r.speaks[0]!.at, holdingAt!, holdingAt! + FRAME_MS, 'holding line spoken at once');
    between(bgDone! - bgStart!, 2500, 2500 + FRAME_MS, 'background task time');
    // The second weather question came while the task ran: no second task, the LLM answered it instead.
    expect(runs).toBe(1);
    expect(r.respondCalls.map((c) => [c.text, c.backgroundBusy])).toEqual([['Also, is it going to rain in Paris?', true]]);
    // The result waited for that exchange to finish and for silence.
    const secondDone = r.marks('done').find((m) => m.turnId === r.respondCalls[0]!.turnId)!.at;
    expect(delivered).toBeGreaterThanOrEqual(Math.max(bgDone!, secondDone));
    expect(delivered! - Math.max(bgDone!, secondDone)).toBeLessThanOrEqual(T.deliverAfterSilenceMs + FRAME_MS);
    expect(r.speaks.at(-1)!.sentence).toBe("It's 20 degrees and sunny in Tokyo.");
    expect(r.engine.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'assistant']);
  });

  it('low-confidence or garbled transcripts get the clarify line, not an answer', async () => {
    const t = new TrackBuilder().pause(500).say('the with about the with about the with about').pause(200);
    const r = await runScenario(vad, { user: t.build(), segments: t.segments });
    order(r, ['endpoint', 'clarify', 'first-speak']);
    expect(r.respondCalls).toHaveLength(0);
    expect(r.speaks.map((s) => s.sentence).join(' ')).toBe(LINES.clarify);
    expect(r.engine.messages).toEqual([]);
  });
});

function states(events: EngineEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'state' ? [e.state] : []));
}

function sleepOn(holder: { clock?: ManualClock }, ms: number): Promise<void> {
  if (!holder.clock) throw new Error('clock not set');
  return holder.clock.sleep(ms);
}
