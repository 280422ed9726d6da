// Caption tracks → timed sections (docs/tools.md, "Videos"), on responses shaped like YouTube's (the fixture in
// tests/fixtures/youtube), and which track is read.
// Breaks that turned these red: json3 segments joined without their own spaces dropped (words run together), the
// section start taken from the last cue of a section instead of its first, the user's language ignored in
// pickCaptionTrack (the original is always read), captionUrl accepting another host, every quoted section listed as a
// source (page.maxSources ignored: the card's first twelve missed the answer's section in the e2e).
import { describe, expect, it } from 'vitest';
import { captionPageText, parseCaptions } from '../../../core/page/captions';
import { formatClock, placeLabel, placeOf } from '../../../core/page/places';
import { buildPagePrompt } from '../../../core/page/prompt';
import { captionUrl, pickCaptionTrack, PlayerCaptionsSchema, samePage, watchVideoId } from '../../../core/page/youtube';
import { pageUrlForPrompt } from '../../../core/page/url';
import { pageTunables } from '../../../core/tunables';
import { captions, json3, playerResponse, srv3, VIDEO_FACT, VIDEO_ID } from '../../fixtures/youtube/watch-page';

const tracksOf = (r: ReturnType<typeof playerResponse>) =>
  r.captions.playerCaptionsTracklistRenderer.captionTracks.map((t) => ({
    baseUrl: t.baseUrl,
    languageCode: t.languageCode,
    ...('kind' in t ? { kind: t.kind } : {}),
    name: t.name.simpleText,
  }));

describe('caption parsing', () => {
  it('reads json3: word segments joined, window and line-break events skipped, start in seconds', () => {
    const cues = parseCaptions(json3(captions()))!;
    expect(cues).toHaveLength(captions().length);
    expect(cues[0]).toEqual({ start: 2.12, text: captions()[0]!.text });
    expect(cues.find((c) => c.text === VIDEO_FACT.text)?.start).toBeCloseTo(VIDEO_FACT.seconds + 0.12);
  });

  it('reads the XML formats (srv3 <p t d>, the older <text start dur>), decoding entities and dropping tags', () => {
    expect(parseCaptions(srv3([{ startMs: 1_500, durationMs: 900, text: 'fish & chips <now>' }]))).toEqual([
      { start: 1.5, text: 'fish & chips <now>' },
    ]);
    const legacy =
      '<?xml version="1.0" encoding="utf-8" ?><transcript><text start="2.5" dur="1.2">it&amp;#39;s <b>high</b> tide</text>' +
      '<text start="0.4" dur="2">first</text></transcript>';
    expect(parseCaptions(legacy)).toEqual([
      { start: 0.4, text: 'first' },
      { start: 2.5, text: "it's high tide" },
    ]);
    const srv3Words =
      '<timedtext format="3"><body><p t="61000" d="2000"><s ac="0">the</s><s t="300"> pilot</s></p></body></timedtext>';
    expect(parseCaptions(srv3Words)).toEqual([{ start: 61, text: 'the pilot' }]);
  });

  it('an empty body (a withheld track), HTML or broken JSON is no captions', () => {
    expect(parseCaptions('')).toBeNull();
    expect(parseCaptions('<!doctype html><p>consent</p>')).toBeNull();
    expect(parseCaptions('{"events": 3}')).toBeNull();
  });

  it("groups cues into sections headed by their first cue's time, and the source of a quote names that time", () => {
    const cues = parseCaptions(json3(captions()))!;
    const text = captionPageText('Tide gauge', cues, 30);
    expect(text.startsWith('# Tide gauge\n\n## At 0:02\n\n')).toBe(true);
    // Sections start at the first cue 30 s or more after the previous section's start: 0:02, 0:34, 1:06 … 12:18.
    expect(text).toContain('## At 0:34\n\n');
    const before = text.slice(0, text.indexOf(VIDEO_FACT.text));
    const heading = before.slice(before.lastIndexOf('## At ') + 3, before.lastIndexOf('\n\n'));
    expect(heading).toBe('At 12:18');
    const prompt = buildPagePrompt({
      page: {
        title: 'Tide gauge',
        url: 'https://www.youtube.com/watch?v=x',
        lang: 'en',
        selection: '',
        text,
        kind: 'video',
        truncated: false,
      },
      question: VIDEO_FACT.question,
      mode: 'question',
    });
    expect(prompt.user).toContain(VIDEO_FACT.text);
    // Many 30-second sections are quoted for the model; the card shows only the best few, this one among them.
    expect(prompt.user.split('[Section: ').length - 1).toBeGreaterThan(pageTunables.maxSources);
    expect(prompt.sources.length).toBeLessThanOrEqual(5); // page.maxSources' default
    const source = prompt.sources.find((s) => s.heading === heading);
    expect(source?.place).toEqual({ seconds: 738 });
    expect(placeLabel(source!.place!)).toBe('at 12:18');
  });
});

describe('places', () => {
  it('formats and reads back page and time headings, only for the kinds Sidetalk heads itself', () => {
    expect(formatClock(754)).toBe('12:34');
    expect(formatClock(3_754.9)).toBe('1:02:34');
    expect(placeOf('video', 'At 1:02:34')).toEqual({ seconds: 3_754 });
    expect(placeOf('pdf', 'Page 12')).toEqual({ page: 12 });
    expect(placeLabel({ page: 12 })).toBe('p. 12');
    expect(placeOf('article', 'Page 12')).toBeNull();
    expect(placeOf('pdf', 'Page twelve')).toBeNull();
  });
});

describe('YouTube tracks', () => {
  it('recognises watch pages only', () => {
    expect(watchVideoId(`https://www.youtube.com/watch?v=${VIDEO_ID}&t=10s`)).toBe(VIDEO_ID);
    expect(watchVideoId('https://m.youtube.com/watch?v=abcdefghijk')).toBe('abcdefghijk');
    expect(watchVideoId('https://www.youtube.com/results?search_query=tides')).toBeNull();
    expect(watchVideoId('https://evil.example/watch?v=abcdefghijk')).toBeNull();
  });

  it("reads a track in the user's language, else the original (the language of the recognised track)", () => {
    const tracks = PlayerCaptionsSchema.parse({ videoId: VIDEO_ID, title: 't', tracks: tracksOf(playerResponse()) }).tracks;
    expect(pickCaptionTrack(tracks, ['de-AT', 'en'])?.languageCode).toBe('de');
    expect(pickCaptionTrack(tracks, ['en-US'])?.kind).toBe('asr');
    expect(pickCaptionTrack(tracks, ['ja'])?.languageCode).toBe('en');
    const written = [...tracks, { baseUrl: '/api/timedtext?lang=en', languageCode: 'en' }];
    expect(pickCaptionTrack(written, ['fr'])).toEqual({ baseUrl: '/api/timedtext?lang=en', languageCode: 'en' });
    expect(pickCaptionTrack([], ['en'])).toBeNull();
  });

  it("asks for json3 on YouTube's own host only", () => {
    const page = `https://www.youtube.com/watch?v=${VIDEO_ID}`;
    const url = captionUrl(tracksOf(playerResponse())[1]!, page)!;
    expect(new URL(url).searchParams.get('fmt')).toBe('json3');
    expect(new URL(url).searchParams.get('lang')).toBe('en');
    expect(captionUrl({ baseUrl: 'https://evil.example/api/timedtext?lang=en', languageCode: 'en' }, page)).toBeNull();
    expect(captionUrl({ baseUrl: 'https://www.youtube.com/logout', languageCode: 'en' }, page)).toBeNull();
  });

  it('a source click is for the same video, or the same address for other pages', () => {
    expect(
      samePage(
        `https://www.youtube.com/watch?v=${VIDEO_ID}&t=5`,
        `https://www.youtube.com/watch?v=${VIDEO_ID}`,
        pageUrlForPrompt,
      ),
    ).toBe(true);
    expect(
      samePage('https://www.youtube.com/watch?v=otherVideo1', `https://www.youtube.com/watch?v=${VIDEO_ID}`, pageUrlForPrompt),
    ).toBe(false);
    expect(samePage('https://example.org/a.pdf#page=3', 'https://example.org/a.pdf', pageUrlForPrompt)).toBe(true);
  });
});
