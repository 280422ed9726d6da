/**
 * The endpoint with an end-of-turn model (Smart Turn's place in the engine): real espeak audio → real Silero VAD →
 * DuplexEngine on a manual clock, with an oracle end-of-turn stage of fixed latency (tests/fixtures/audio/
 * conversation-sim.ts). Asserts the timeline: a finished question ends at the check, a mid-thought pause does not,
 * noise never asks, and a resumption after an early endpoint still merges.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FRAME_MS } from '../../../core/engine/audio-frames';
import { engineTunables as T, resetTunables, setTunable } from '../../../core/tunables';
import type { SileroVadJs as SileroVad } from '../../../models/vad/silero-js';
import { loadSilero, runScenario } from '../../fixtures/audio/conversation-sim';
import { TrackBuilder, noise } from '../../fixtures/audio/make-audio';

let vad: SileroVad;
beforeAll(async () => {
  vad = await loadSilero();
});
afterEach(() => resetTunables('engine'));

const MODEL_MS = 60;

describe('endpointing with an end-of-turn model', () => {
  it('a finished question ends at the check, well before the silence rules would end it', async () => {
    const t = new TrackBuilder().pause(600).say('What is the capital of France?').pause(300);
    const r = await runScenario(vad, {
      user: t.build(),
      segments: t.segments,
      endOfTurn: { latencyMs: MODEL_MS },
      reply: () => 'Paris.',
    });
    const eos = r.first('end-of-speech');
    const endpoint = r.first('endpoint');
    const check = r.marks('turn-check')[0]!;
    expect(check.probability).toBeGreaterThan(0.5);
    // Asked once, at the check silence; the endpoint follows the answer at once (no frame wait).
    expect(r.endOfTurnCalls).toHaveLength(1);
    expect(r.endOfTurnCalls[0]!.at - eos).toBeGreaterThanOrEqual(T.turnCheckMs);
    expect(r.endOfTurnCalls[0]!.at - eos).toBeLessThan(T.turnCheckMs + FRAME_MS);
    expect(endpoint - eos).toBeLessThanOrEqual(T.turnCheckMs + FRAME_MS + MODEL_MS);
    expect(endpoint - eos).toBeLessThan(T.endpointCompleteMs);
    expect(endpoint).toBe(check.at);
    expect(r.respondCalls.map((c) => c.text)).toEqual(['What is the capital of France?']);
  });

  it('asks the end-of-turn model before speculative ASR, which would otherwise queue ahead of it in the worker', async () => {
    // Speculation set earlier than the check: with a model it still waits for the question; without, it does not.
    setTunable('engine.tentativeEndpointMs', 64);
    const t = new TrackBuilder().pause(600).say('What is the capital of France?').pause(300);
    const withModel = await runScenario(vad, { user: t.build(), segments: t.segments, endOfTurn: { latencyMs: MODEL_MS } });
    const asked = withModel.endOfTurnCalls[0]!.at;
    expect(withModel.transcribeCalls.length).toBeGreaterThan(0);
    for (const call of withModel.transcribeCalls) expect(call.at).toBeGreaterThanOrEqual(asked);
    // Without a model the speculative ASR starts after tentativeEndpointMs of quiet, before the model would be asked.
    const without = await runScenario(vad, { user: t.build(), segments: t.segments });
    const eos = without.first('end-of-speech');
    expect(without.transcribeCalls[0]!.at - eos).toBeLessThan(T.turnCheckMs);
  });

  it('where drafts run (a hardware GPU), the transcription starts before the question, at earlyTentativeEndpointMs', async () => {
    const t = new TrackBuilder().pause(600).say('What is the capital of France?').pause(300);
    const run = () =>
      runScenario(vad, { user: t.build(), segments: t.segments, endOfTurn: { latencyMs: MODEL_MS }, asrDrafts: true });
    const early = await run();
    const eos = early.first('end-of-speech');
    const tentative = early.marks('tentative-endpoint')[0]!;
    expect(tentative.silenceMs).toBeGreaterThanOrEqual(T.earlyTentativeEndpointMs);
    expect(tentative.silenceMs).toBeLessThan(T.earlyTentativeEndpointMs + FRAME_MS);
    expect(tentative.at).toBeLessThan(early.endOfTurnCalls[0]!.at);
    const speculative = early.transcribeCalls.filter((c) => c.at >= eos);
    expect(speculative).toHaveLength(1);
    expect(speculative[0]!.at).toBeLessThan(early.endOfTurnCalls[0]!.at);
    expect(early.respondCalls.map((c) => c.text)).toEqual(['What is the capital of France?']);
    // The same turn with the question first: its transcript comes the difference later.
    const lead = T.tentativeEndpointMs - T.earlyTentativeEndpointMs;
    setTunable('engine.earlyTentativeEndpointMs', T.tentativeEndpointMs);
    const questionFirst = await run();
    expect(questionFirst.first('transcript') - early.first('transcript')).toBeGreaterThanOrEqual(lead - FRAME_MS);
  });

  it('a recognizer too slow for drafts goes back to the question first', async () => {
    const t = new TrackBuilder().pause(600).say('What is the capital of France?').pause(1200);
    const r = await runScenario(vad, {
      user: t.build(),
      segments: t.segments,
      endOfTurn: { latencyMs: MODEL_MS },
      asrDrafts: true,
      latency: { asrMs: 900 },
    });
    expect(r.marks('asr-draft')[0]).toMatchObject({ slow: true });
    const asked = r.endOfTurnCalls[0]!.at;
    const tentative = r.marks('tentative-endpoint');
    expect(tentative.length).toBeGreaterThan(0);
    for (const mark of tentative) expect(mark.at).toBeGreaterThanOrEqual(asked);
    const speculative = r.transcribeCalls.filter((c) => c.at >= r.first('end-of-speech'));
    expect(speculative.length).toBeGreaterThan(0);
    for (const call of speculative) expect(call.at).toBeGreaterThanOrEqual(asked);
  });

  it('a mid-thought pause ("…and", 900 ms) is not taken as the end, and the turn holds both halves', async () => {
    const t = new TrackBuilder()
      .pause(500)
      .say('I want to plan a trip and')
      .pause(900)
      .say('maybe visit Lisbon in May.')
      .pause(200);
    const [first, second] = t.segments as [(typeof t.segments)[0], (typeof t.segments)[0]];
    const r = await runScenario(vad, { user: t.build(), segments: t.segments, endOfTurn: { latencyMs: MODEL_MS } });
    const inPause = r.marks('turn-check').filter((m) => m.at > first.endMs && m.at < second.startMs);
    expect(inPause.map((m) => m.probability)).toEqual([0.15]);
    expect(r.marks('endpoint')).toHaveLength(1);
    expect(r.first('endpoint')).toBeGreaterThan(second.endMs);
    expect(r.respondCalls.map((c) => c.text)).toEqual(['I want to plan a trip and maybe visit Lisbon in May.']);
  });

  it('"not finished" and then silence: the turn ends after the long incomplete window', async () => {
    const t = new TrackBuilder().pause(500).say('I was thinking that maybe we could').pause(2600);
    const r = await runScenario(vad, { user: t.build(), segments: t.segments, endOfTurn: { latencyMs: MODEL_MS } });
    const eos = r.first('end-of-speech');
    expect(r.marks('turn-check').map((m) => m.probability)).toEqual([0.15]);
    const wait = r.first('endpoint') - eos;
    expect(wait).toBeGreaterThanOrEqual(T.endpointTurnIncompleteMs);
    expect(wait).toBeLessThan(T.endpointTurnIncompleteMs + FRAME_MS);
  });

  it('noise alone never asks the model and never becomes a turn', async () => {
    const user = new Float32Array(16000 * 5);
    const hiss = noise('pinknoise', 3, 0.15);
    user.set(hiss, 8000);
    expect(Math.sqrt(hiss.reduce((s, v) => s + v * v, 0) / hiss.length)).toBeGreaterThan(0.02); // it is audible
    const r = await runScenario(vad, { user, segments: [], endOfTurn: { latencyMs: MODEL_MS } });
    expect(r.endOfTurnCalls).toEqual([]);
    expect(r.marks('endpoint')).toEqual([]);
  });

  it('resuming right after an early endpoint, before any reply audio, still merges into one turn', async () => {
    const t = new TrackBuilder().pause(500).say('Tell me about Lisbon.').pause(450).say('And its old trams.').pause(300);
    const r = await runScenario(vad, {
      user: t.build(),
      segments: t.segments,
      endOfTurn: { latencyMs: MODEL_MS },
      latency: { llmFirstTokenMs: 450 },
      reply: (turn) => (turn.text.includes('trams') ? 'Line 28 is the classic.' : 'Lisbon is lovely.'),
    });
    expect(r.marks('merge')).toHaveLength(1);
    expect(r.respondCalls.at(-1)!.text).toBe('Tell me about Lisbon. And its old trams.');
    expect(r.engine.messages.filter((m) => m.role === 'user')).toHaveLength(1);
  });
});
