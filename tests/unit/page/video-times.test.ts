// A video source seeks to the second the answer points to (docs/tools.md, "Videos"): time marks inside a caption
// section, the times an answer names, and the stretch that shares the answer's words.
// Breaks that turned these red: no marks in the captions' text (the 12:18 source stayed at 12:18 for an answer at
// 12:34), a named time taken outside its section (the 2:05 of another section moved this one), the ratio "3:1" read as a
// time, the overlap fallback taking the last stretch on a tie instead of the first, sourcesFor ignoring the answer, the
// last section taken to run for ever (an answer's "9:30" moved a 40 s video's last source past its end).
import { describe, expect, it } from 'vitest';
import { captionPageText, parseCaptions } from '../../../core/page/captions';
import { placeLabel } from '../../../core/page/places';
import { buildPagePrompt } from '../../../core/page/prompt';
import { secondInSection, stretchesOf, timesNamed } from '../../../core/page/video-times';
import { captions, json3, VIDEO_FACT } from '../../fixtures/youtube/watch-page';

const videoPage = (text: string) => ({
  title: 'Tide gauge',
  url: 'https://www.youtube.com/watch?v=x',
  lang: 'en',
  selection: '',
  text,
  kind: 'video' as const,
  truncated: false,
});

describe('times inside a video section', () => {
  it('marks the first cue of each ~10 s stretch inside a section, none at a section start, none when off', () => {
    const cues = parseCaptions(json3(captions()))!;
    const text = captionPageText('Tide gauge', cues, 30, 10);
    // Cues every 4 s from 0:02.12: the section at 12:18 is marked at 12:30 and 12:42 (each ≥ 10 s after the last).
    const section = text.slice(text.indexOf('## At 12:18\n\n'), text.indexOf('## At 12:50'));
    expect(section.match(/\(\d+:\d\d\)/g)).toEqual(['(12:30)', '(12:42)']);
    expect(section.indexOf('(12:30)')).toBeLessThan(section.indexOf(VIDEO_FACT.text));
    expect(section.indexOf(VIDEO_FACT.text)).toBeLessThan(section.indexOf('(12:42)'));
    expect(captionPageText('Tide gauge', cues, 30)).not.toMatch(/\(\d+:\d\d\)/);
  });

  it('reads the clock times an answer names, not ratios or longer numbers', () => {
    expect(timesNamed('At 12:34 the pilot reads it; again at 1:02:34.')).toEqual([754, 3_754]);
    expect(timesNamed('a 3:1 mix, version 2:345, 10:61')).toEqual([]);
  });

  it('a named time in the section wins; else the stretch sharing most words; else the section start', () => {
    const text = 'boats float here (12:30) the harbour pilot Ingrid Solvang reads it (12:42) water level pipe';
    const stretches = stretchesOf(text, 738);
    expect(stretches.map((s) => s.seconds)).toEqual([738, 750, 762]);
    const section = { start: 738, end: 770, stretches };
    expect(secondInSection(section, 'At 12:34, the pilot Ingrid Solvang reads it.', 'who reads it?')).toBe(754);
    // 2:05 is another section's time: the words decide.
    expect(secondInSection(section, 'Ingrid Solvang, the pilot, at 2:05.', 'who reads it?')).toBe(750);
    expect(secondInSection(section, 'Nobody says.', 'what colour is the sky?')).toBe(738);
    // A tie keeps the earlier stretch.
    expect(secondInSection({ start: 0, end: 30, stretches: stretchesOf('pilot (0:10) pilot', 0) }, 'pilot', '')).toBe(0);
  });

  it("the sources card's video source moves to the answer's second; the prompt's own sources stay at the section", () => {
    const cues = parseCaptions(json3(captions()))!;
    const prompt = buildPagePrompt({
      page: videoPage(captionPageText('Tide gauge', cues, 30, 10)),
      question: VIDEO_FACT.question,
      mode: 'question',
    });
    expect(prompt.user).toContain('(12:30)');
    const at = (answer: string) => prompt.sourcesFor(answer).find((s) => s.heading === 'At 12:18')?.place;
    expect(prompt.sources.find((s) => s.heading === 'At 12:18')?.place).toEqual({ seconds: 738 });
    expect(at('At 12:34, the harbour pilot Ingrid Solvang reads it every morning.')).toEqual({ seconds: 754 });
    expect(placeLabel(at('At 12:34, the pilot reads it.')!)).toBe('at 12:34');
    expect(at('The harbour pilot Ingrid Solvang reads it every morning.')).toEqual({ seconds: 750 });
    // The last section has no next one: a time past its ~30 s is not its own (the video may end there).
    const short = buildPagePrompt({
      page: videoPage(
        captionPageText(
          'Tide gauge',
          [0, 4, 8, 12, 16, 20, 24, 28, 32, 36].map((t) => ({ start: t, text: t === 36 ? VIDEO_FACT.text : 'boats float' })),
          30,
          10,
        ),
      ),
      question: VIDEO_FACT.question,
      mode: 'question',
    });
    const last = (answer: string) => short.sourcesFor(answer).find((s) => s.heading === 'At 0:32')?.place;
    expect(last('At 0:36 the pilot Ingrid Solvang reads it.')).toEqual({ seconds: 36 });
    expect(last('At 9:30 the pilot Ingrid Solvang reads it.')).toEqual({ seconds: 32 });
    // Another kind of page: the sources as they are.
    const plain = buildPagePrompt({
      page: { ...videoPage('# T\n\n## At 0:02\n\nthe pilot reads it at 0:05'), kind: 'article' as const },
      question: 'who reads it?',
      mode: 'question',
    });
    expect(plain.sourcesFor('at 0:05')).toBe(plain.sources);
  });
});
