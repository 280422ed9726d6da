import { describe, expect, it } from 'vitest';
import { heardText, SentenceAudioLog, type SentenceAudio } from '../../../core/engine/heard-text';
import { InterruptedReply } from '../../../core/engine/interrupted-reply';
import type { HistoryMessage } from '../../../core/engine/types';

// 28 letters over 2800 ms (100 ms a letter): The 0–300, lighthouse 300–1300, keeper 1300–1900, woke 1900–2300,
// early 2300–2800. Then 18 letters over 1800 ms: He 0–200, climbed 200–900, the 900–1200, stairs 1200–1800.
const S1 = 'The lighthouse keeper woke early.';
const S2 = 'He climbed the stairs.';
const both = (s2: Partial<SentenceAudio> = {}): SentenceAudio[] => [
  { text: S1, audioMs: 2800, complete: true },
  { text: S2, audioMs: 1800, complete: true, ...s2 },
];

describe('heardText: the words the user heard of an interrupted reply', () => {
  it('nothing played: nothing heard', () => {
    expect(heardText(both(), 0)).toBe('');
    expect(heardText([], 500)).toBe('');
  });

  it('a word counts once half of its span has played', () => {
    expect(heardText(both(), 149)).toBe('');
    expect(heardText(both(), 150)).toBe('The');
    expect(heardText(both(), 799)).toBe('The');
    expect(heardText(both(), 800)).toBe('The lighthouse');
  });

  it('stop mid-first-sentence: the words before the stop, cut at a word boundary', () => {
    expect(heardText(both(), 1700)).toBe('The lighthouse keeper');
    expect(heardText(both(), 2600)).toBe('The lighthouse keeper woke early.');
  });

  it('stop in the gap between sentences: the first sentence whole, none of the next', () => {
    expect(heardText(both(), 2800)).toBe(S1);
    expect(heardText(both(), 2899)).toBe(S1);
    expect(heardText(both(), 2900)).toBe(`${S1} He`);
  });

  it('a sentence cut by the stop before any of its audio reached the player is not heard', () => {
    expect(heardText(both({ audioMs: 0, complete: false }), 2800)).toBe(S1);
  });

  it('a sentence with nothing to say is passed only when playback went on past it', () => {
    const withEmpty = [both()[0]!, { text: '**', audioMs: 0, complete: true }, both()[1]!];
    expect(heardText(withEmpty, 2800)).toBe(S1);
    expect(heardText(withEmpty, 2900)).toBe(`${S1} ** He`);
  });

  it('stop after everything played: the whole reply, as the engine joins it', () => {
    expect(heardText(both(), 4600)).toBe(`${S1} ${S2}`);
    expect(heardText(both(), 60_000)).toBe(`${S1} ${S2}`);
  });

  it('a sentence still arriving is timed at the pace of the complete ones', () => {
    // S2 has 900 ms so far of an expected 1800 (18 letters at 100 ms): He and climbed (half at 550) are heard.
    expect(heardText(both({ audioMs: 900, complete: false }), 2800 + 900)).toBe(`${S1} He climbed`);
  });

  it('with no complete sentence yet, at the voices’ usual pace (2.5 words a second)', () => {
    // 5 words → 2000 ms over 28 letters: The (half at 107 ms), lighthouse (571 ms) heard by 1000 ms; keeper (1143) not.
    expect(heardText([{ text: S1, audioMs: 1000, complete: false }], 1000)).toBe('The lighthouse');
  });

  it('the share of a word that must have played is a parameter', () => {
    // keeper spans 1300–1900 ms: heard at 1500 when a fifth must have played, not when half must.
    expect(heardText(both(), 1500, 0.2)).toBe('The lighthouse keeper');
    expect(heardText(both(), 1500, 0.5)).toBe('The lighthouse');
    expect(heardText(both(), 1700, 0.5)).toBe('The lighthouse keeper');
    expect(heardText(both(), 1700, 0.9)).toBe('The lighthouse');
  });
});

describe('SentenceAudioLog: what the offscreen document handed to the player', () => {
  it('adds each sentence’s audio in order and keeps the last turns only', () => {
    const log = new SentenceAudioLog(2);
    log.begin('t1', 0, S1);
    log.audio('t1', 0, 80);
    log.audio('t1', 0, 80);
    log.complete('t1', 0);
    log.begin('t1', 1, S2);
    log.audio('t1', 1, 40);
    expect(log.sentences('t1')).toEqual([
      { text: S1, audioMs: 160, complete: true },
      { text: S2, audioMs: 40, complete: false },
    ]);
    log.begin('t2', 0, 'Two.');
    log.begin('t3', 0, 'Three.');
    expect(log.sentences('t1')).toEqual([]);
    expect(log.sentences('t3')).toEqual([{ text: 'Three.', audioMs: 0, complete: false }]);
  });
});

describe('InterruptedReply: the history entry and caption follow the player’s report', () => {
  function setup(sentences: SentenceAudio[] | undefined) {
    const history: HistoryMessage[] = [{ role: 'user', text: 'tell me a story' }];
    const captions: { turnId: string; text: string }[] = [];
    const reply = new InterruptedReply(history, sentences && (() => sentences), (turnId, text) =>
      captions.push({ turnId, text }),
    );
    return { history, captions, reply };
  }

  it('at the cut: the text handed to TTS; after the report: the words heard', () => {
    const { history, captions, reply } = setup(both());
    reply.cut('t1', `${S1} ${S2}`, true);
    expect(history.at(-1)).toEqual({ role: 'assistant', text: `${S1} ${S2} [interrupted]` });
    reply.played({ type: 'ended', turnId: 't0', interrupted: true, playedMs: 1700 }); // another turn: ignored
    reply.played({ type: 'ended', turnId: 't1', interrupted: true }); // no played amount: ignored
    expect(history.at(-1)!.text).toBe(`${S1} ${S2} [interrupted]`);
    reply.played({ type: 'ended', turnId: 't1', interrupted: true, playedMs: 1700 });
    expect(history).toEqual([
      { role: 'user', text: 'tell me a story' },
      { role: 'assistant', text: 'The lighthouse keeper [interrupted]' },
    ]);
    expect(captions).toEqual([
      { turnId: 't1', text: `${S1} ${S2} —` },
      { turnId: 't1', text: 'The lighthouse keeper —' },
    ]);
  });

  it("a drained run's end that arrives after the cut is not the report: the stop's own end is", () => {
    // The voice was slower than real time: the player played S1, ran dry (an end, not interrupted), got S2's first
    // audio and was stopped 1000 ms into it. The drained end travels on the playback channel, the stop on another one,
    // so the engine can see the drained end after the cut.
    const { history, captions, reply } = setup(both({ complete: false }));
    reply.cut('t1', `${S1} ${S2}`, true);
    reply.played({ type: 'ended', turnId: 't1', playedMs: 2800 });
    reply.played({ type: 'ended', turnId: 't1', interrupted: true, playedMs: 3800 });
    expect(history.at(-1)).toEqual({ role: 'assistant', text: 'The lighthouse keeper woke early. He climbed [interrupted]' });
    expect(captions.map((c) => c.text)).toEqual([`${S1} ${S2} —`, 'The lighthouse keeper woke early. He climbed —']);
  });

  it('nothing heard: the entry is the marker alone, the caption a dash', () => {
    const { history, captions, reply } = setup(both());
    reply.cut('t1', S1, true);
    reply.played({ type: 'ended', turnId: 't1', interrupted: true, playedMs: 0 });
    expect(history.at(-1)).toEqual({ role: 'assistant', text: '[interrupted]' });
    expect(captions.at(-1)).toEqual({ turnId: 't1', text: '—' });
  });

  it('without the sentences’ audio (or without a report) the entry stays what was handed to TTS', () => {
    const { history, captions, reply } = setup(undefined);
    reply.cut('t1', S1, true);
    reply.played({ type: 'ended', turnId: 't1', interrupted: true, playedMs: 1700 });
    expect(history.at(-1)).toEqual({ role: 'assistant', text: `${S1} [interrupted]` });
    expect(captions).toEqual([{ turnId: 't1', text: `${S1} —` }]);
  });

  it('never more than was handed to TTS, and a line not to remember gets a caption only', () => {
    const a = setup(both());
    a.reply.cut('t1', S1, true); // S2 was never handed to TTS for this turn: a list that says so is not believed
    a.reply.played({ type: 'ended', turnId: 't1', interrupted: true, playedMs: 4600 });
    expect(a.history.at(-1)!.text).toBe(`${S1} [interrupted]`);
    const b = setup(both());
    b.reply.cut('t1', S1, false);
    b.reply.played({ type: 'ended', turnId: 't1', interrupted: true, playedMs: 800 });
    expect(b.history).toHaveLength(1);
    expect(b.captions.at(-1)).toEqual({ turnId: 't1', text: 'The lighthouse —' });
  });
});
