/**
 * After a barge-in the history holds what the user heard, to the word (docs/interruptions.md): real Silero VAD on a
 * user track that cuts in at different points of a long reply whose voice says each word on its own, so where every
 * word lies is known; the simulated player reports how much of the turn it played, as the side panel does.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../core/engine/types';
import { loadSilero, runScenario } from '../../fixtures/audio/conversation-sim';
import { TrackBuilder } from '../../fixtures/audio/make-audio';
import { wordsHeard } from '../../fixtures/audio/word-timed-speech';
import type { SileroVadJs as SileroVad } from '../../../models/vad/silero-js';

let vad: SileroVad;
beforeAll(async () => {
  vad = await loadSilero();
});

const LONG_REPLY =
  'Once upon a time, a small dragon lived in the hills above a quiet village. ' +
  'Every morning it counted the sheep in the valley and sang to the river. ' +
  'The villagers were afraid at first, but the dragon only wanted a friend. ' +
  'One winter a child climbed the hill with a basket of warm bread.';

const words = (s: string) => s.split(/\s+/).filter(Boolean);

describe('the history after a barge-in holds the words played (real Silero VAD, word-timed voice)', () => {
  // Pauses before the interruption: it lands in the first, second and third sentence of the reply.
  for (const pauseMs of [3200, 6500, 9500]) {
    it(`cut ${pauseMs} ms after the question: history and caption are the heard words, ± one word`, async () => {
      const t = new TrackBuilder()
        .pause(500)
        .say('Tell me a long story about a dragon.')
        .pause(pauseMs)
        .say('Stop, wait a second.')
        .pause(200);
      const r = await runScenario(vad, {
        user: t.build(),
        segments: t.segments,
        echoGain: 0.3,
        wordTimedVoice: true,
        tailMs: 8000,
        reply: (turn) => (turn.text.includes('dragon') ? LONG_REPLY : 'Okay, I am listening.'),
      });
      const cut = r.marks('barge-in')[0];
      expect(cut, 'the user barged in').toBeDefined();
      const turnId = cut!.turnId;
      const spoken = r.speaks.filter((s) => s.turnId === turnId).map((s) => s.sentence);
      const played = r.playedSamples.get(turnId)!;
      // The player's report: an interrupted end with the turn's played audio (16 samples a millisecond).
      const ended = r.playback.find((p) => p.event.type === 'ended' && p.event.turnId === turnId)!.event;
      expect(ended).toEqual({ type: 'ended', turnId, interrupted: true, playedMs: played / 16 });

      const entry = r.engine.messages.find((m) => m.role === 'assistant' && m.text.endsWith('[interrupted]'))!;
      const heard = entry.text.replace(/ ?\[interrupted\]$/, '');
      const truth = wordsHeard(r.words.get(turnId)!, played);
      console.log(
        `[heard] cut at ${pauseMs} ms: played ${Math.round(played / 16)} ms of ${spoken.length} sentences; history ` +
          `${words(heard).length} words, heard ${truth.length} (${words(heard).length - truth.length})`,
      );
      // TTS ran ahead of playback: the sentences handed over say more than was heard.
      expect(words(spoken.join(' ')).length).toBeGreaterThan(truth.length + 1);
      // The history is the reply's own words, cut at a word boundary, within one word of what played.
      expect(LONG_REPLY.startsWith(heard)).toBe(true);
      expect(Math.abs(words(heard).length - truth.length)).toBeLessThanOrEqual(1);
      // The final caption says the same, and the next turn's prompt carries it with the marker.
      const captions = r.events.filter(
        (e): e is Extract<EngineEvent, { type: 'caption' }> => e.type === 'caption' && e.turnId === turnId && e.final,
      );
      expect(captions.at(-1)!.text).toBe(heard ? `${heard} —` : '—');
      const next = r.respondCalls.at(-1)!;
      expect(next.text).toBe('Stop, wait a second.');
      expect(next.history).toContainEqual({ role: 'assistant', text: entry.text });
    });
  }
});
