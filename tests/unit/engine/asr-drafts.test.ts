/**
 * ASR drafts in the engine (core/engine/asr-drafts.ts): real espeak audio → real Silero VAD → DuplexEngine on a
 * manual clock with the oracle ASR, whose "tokens" are word ids. While the user speaks, the utterance so far is
 * transcribed with the previous transcript as its draft; the transcription that ends the turn gets the newest draft.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resetTunables, setTunable } from '../../../core/tunables';
import type { SileroVadJs as SileroVad } from '../../../models/vad/silero-js';
import { draftsAffordable } from '../../../core/engine/asr-drafts';
import { loadSilero, runScenario, wordIds } from '../../fixtures/audio/conversation-sim';
import { TrackBuilder } from '../../fixtures/audio/make-audio';

let vad: SileroVad;
beforeAll(async () => {
  vad = await loadSilero();
});
beforeEach(() => setTunable('engine.asrDraftEveryMs', 480));
afterEach(() => resetTunables('engine'));

const QUESTION = 'What is the capital of France, and how many people live there today?';
const isPrefix = (part: readonly number[], whole: readonly number[]) => part.every((id, i) => whole[i] === id);

describe('ASR drafts while the user speaks', () => {
  it('transcribes the utterance so far during speech, each time with the last draft, and ends with the newest one', async () => {
    const t = new TrackBuilder().pause(500).say(QUESTION).pause(1000);
    const r = await runScenario(vad, { user: t.build(), segments: t.segments, asrDrafts: true });
    const eos = r.first('end-of-speech');
    // Speculative transcriptions started in the phrase's short pauses (and dropped when speech resumed) are not drafts.
    const speculativeAt = new Set(
      r
        .marks('asr-start')
        .filter((m) => m.speculative)
        .map((m) => m.at),
    );
    const during = r.transcribeCalls.filter((c) => c.at < eos && !speculativeAt.has(c.at));
    expect(during.length).toBeGreaterThanOrEqual(3);
    expect(during[0]!.draft).toBeUndefined();
    // Each draft call carries what the one before it heard; every draft is the start of the final words.
    for (let i = 1; i < during.length; i++) expect(during[i]!.draft).toEqual(wordIds(during[i - 1]!.text));
    const last = r.transcribeCalls.filter((c) => c.at >= eos)[0]!;
    expect(last.draft).toEqual(wordIds(during.at(-1)!.text));
    expect(isPrefix(last.draft!, wordIds(QUESTION))).toBe(true);
    expect(last.draft!.length).toBeLessThan(wordIds(QUESTION).length);
    // The turn is the same as without drafts.
    expect(r.respondCalls.map((c) => c.text)).toEqual([QUESTION]);
    const asrStart = r.marks('asr-start').filter((m) => m.at >= eos)[0]!;
    expect(asrStart.draftTokens).toBe(last.draft!.length);
    // Each draft is in the trace, none too slow at 150 ms a transcription.
    expect(r.marks('asr-draft').map((m) => m.slow)).toEqual(during.map(() => false));
  });

  it('a recognizer that cannot keep up (a draft still running after its interval) is cancelled, and drafting stops', async () => {
    const t = new TrackBuilder().pause(500).say(QUESTION).pause(1000);
    const r = await runScenario(vad, { user: t.build(), segments: t.segments, asrDrafts: true, latency: { asrMs: 900 } });
    const eos = r.first('end-of-speech');
    const during = r.transcribeCalls.filter((c) => c.at < eos);
    expect(during).toHaveLength(1);
    expect(during[0]!.aborted).toBe(true);
    const [draft] = r.marks('asr-draft');
    expect(draft).toMatchObject({ slow: true });
    expect(draft!.ms).toBeGreaterThan(480);
    expect(draft!.ms).toBeLessThan(480 + 2 * 32 + 1);
    expect(r.respondCalls.map((c) => c.text)).toEqual([QUESTION]);
  });

  it('none where transcribing is not cheap (the speech models on the CPU), or with the knob at 0', async () => {
    const t = new TrackBuilder().pause(500).say(QUESTION).pause(1000);
    for (const run of [{ asrDrafts: false }, { asrDrafts: true, off: true }]) {
      if (run.off) setTunable('engine.asrDraftEveryMs', 0);
      const r = await runScenario(vad, { user: t.build(), segments: t.segments, asrDrafts: run.asrDrafts });
      const eos = r.first('end-of-speech');
      expect(r.transcribeCalls.filter((c) => c.at < eos)).toEqual([]);
      expect(r.transcribeCalls.every((c) => c.draft === undefined)).toBe(true);
      expect(r.respondCalls.map((c) => c.text)).toEqual([QUESTION]);
    }
  });

  it("a new utterance starts without the last one's draft", async () => {
    const t = new TrackBuilder()
      .pause(500)
      .say(QUESTION)
      .pause(4000)
      .say('And what about Germany and its capital city?')
      .pause(1000);
    const r = await runScenario(vad, {
      user: t.build(),
      segments: t.segments,
      asrDrafts: true,
      reply: () => 'Paris.',
      latency: { ttsMs: 50 },
    });
    const second = t.segments[1]!;
    const calls = r.transcribeCalls.filter((c) => c.at >= second.startMs);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls[0]!.draft).toBeUndefined();
    for (const c of calls.slice(1)) expect(c.draft?.[0]).toBe(wordIds('And')[0]);
  });
});

describe('where drafts are affordable', () => {
  const hardware = { isFallbackAdapter: false, architecture: 'hopper' };
  it('only with the speech models on a hardware GPU: not on the CPU, SwiftShader or a fallback adapter', () => {
    expect(draftsAffordable('webgpu', hardware)).toBe(true);
    expect(draftsAffordable('wasm', hardware)).toBe(false);
    expect(draftsAffordable(null, hardware)).toBe(false);
    expect(draftsAffordable('webgpu', null)).toBe(false);
    expect(draftsAffordable('webgpu', { isFallbackAdapter: false, architecture: 'swiftshader' })).toBe(false);
    expect(draftsAffordable('webgpu', { isFallbackAdapter: true, architecture: '' })).toBe(false);
  });
});
