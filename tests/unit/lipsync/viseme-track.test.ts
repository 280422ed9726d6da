import { afterEach, describe, expect, it } from 'vitest';
import { resetTunables, setTunable, lipsyncTunables } from '../../../core/tunables';
import { changesPerSecond, offsetTrack, textToVisemeTrack, type VisemeTrack } from '../../../core/lipsync/viseme-track';
import { wordToSounds } from '../../../core/lipsync/graphemes';

afterEach(() => resetTunables('lipsync'));

function segs(t: VisemeTrack): Array<{ v: string; a: number; b: number }> {
  return t.visemes.map((v, i) => ({ v, a: t.vtimes[i]!, b: t.vtimes[i]! + t.vdurations[i]! }));
}

describe('grapheme rules', () => {
  it('maps the letters that matter visually', () => {
    const v = (w: string): string =>
      wordToSounds(w)
        .map((s) => s.viseme)
        .join(' ');
    expect(v('map')).toBe('PP aa PP');
    expect(v('five')).toBe('FF I FF');
    expect(v('we')).toBe('U E');
    expect(v('joy')).toBe('CH O I');
    expect(v('phone')).toBe('FF O nn');
    expect(v('thin')).toBe('TH I nn');
  });

  it('marks only stressed or long vowels strong; function words get none', () => {
    const banana = wordToSounds('banana').filter((s) => s.vowel);
    expect(banana.map((s) => s.strong)).toEqual([true, false, false]);
    expect(wordToSounds('the').some((s) => s.strong)).toBe(false);
    expect(wordToSounds('time').filter((s) => s.strong).length).toBeGreaterThan(0);
  });
});

describe('textToVisemeTrack', () => {
  it('closes the lips on every m/b/p for at least closureMinMs, even in fast speech', () => {
    const t = textToVisemeTrack('my big plan', { durationMs: 700 });
    const pp = segs(t).filter((s) => s.v === 'PP');
    expect(pp.length).toBe(3);
    for (const s of pp) expect(s.b - s.a).toBeGreaterThanOrEqual(lipsyncTunables.closureMinMs - 1);
  });

  it('starts rounded shapes early (anticipation)', () => {
    const text = 'see you soon';
    const late = textToVisemeTrack(text, { durationMs: 1500 });
    setTunable('lipsync.roundLeadMs', 0);
    const onTime = textToVisemeTrack(text, { durationMs: 1500 });
    resetTunables('lipsync');
    const firstU = (t: VisemeTrack): number => t.vtimes[t.visemes.indexOf('U')]!;
    expect(onTime.visemes).toContain('U');
    expect(firstU(onTime) - firstU(late)).toBeGreaterThan(20);
    expect(firstU(onTime) - firstU(late)).toBeLessThanOrEqual(lipsyncTunables.roundLeadMs + 1);
  });

  it('opens wide only on strong vowels', () => {
    const t = textToVisemeTrack('banana at a cabana', { durationMs: 2400 });
    // banana, cabana: 1 strong a each; "at" is a function word; "a" is weak.
    expect(t.visemes.filter((v) => v === 'aa').length).toBeLessThanOrEqual(3);
    expect(t.visemes).toContain('aa');
  });

  it('caps mouth changes per second and never flickers', () => {
    const text = 'Actually the quick brown fox jumps over the lazy dog and then it keeps on running until dinner.';
    const t = textToVisemeTrack(text, { durationMs: 4000 });
    expect(changesPerSecond(t, 0, 4000)).toBeLessThanOrEqual(lipsyncTunables.maxChangesPerSec);
    setTunable('lipsync.maxChangesPerSec', 4);
    const calm = textToVisemeTrack(text, { durationMs: 4000 });
    expect(calm.visemes.length).toBeLessThanOrEqual(16);
    expect(calm.visemes.length).toBeLessThan(t.visemes.length);
    // Identical shapes are never repeated back to back.
    for (let i = 1; i < t.visemes.length; i++) {
      if (t.visemes[i] === t.visemes[i - 1]) expect(t.vtimes[i]).toBeGreaterThan(t.vtimes[i - 1]! + t.vdurations[i - 1]!);
    }
  });

  it('relaxes the mouth in pauses and holds it across tiny gaps', () => {
    const t = textToVisemeTrack('Well, okay then.', { durationMs: 1800 });
    expect(t.pauses.length).toBe(1);
    const p = t.pauses[0]!;
    expect(p.end - p.start).toBeGreaterThanOrEqual(lipsyncTunables.pauseRelaxMs);
    for (const s of segs(t)) expect(s.b <= p.start + 1 || s.a >= p.end - 1).toBe(true);
    expect(textToVisemeTrack('Well okay then', { durationMs: 1800 }).pauses).toEqual([]);
  });

  it('fits the audio: inside the voiced span, scales with duration', () => {
    const text = 'Here is the weather for Paris tomorrow.';
    const voiced = { start: 120, end: 2100 };
    const t = textToVisemeTrack(text, { durationMs: 2300, voiced });
    for (const s of segs(t)) {
      expect(s.a).toBeGreaterThanOrEqual(voiced.start - lipsyncTunables.roundLeadMs - lipsyncTunables.closureMinMs);
      expect(s.b).toBeLessThanOrEqual(voiced.end + 1);
    }
    expect(voiced.end - (t.vtimes.at(-1)! + t.vdurations.at(-1)!)).toBeLessThan(5);
    const slow = textToVisemeTrack(text, { durationMs: 4600, voiced: { start: 240, end: 4200 } });
    expect(slow.wtimes.at(-1)! / t.wtimes.at(-1)!).toBeCloseTo(2, 1);
    expect(t.words).toEqual(['Here', 'is', 'the', 'weather', 'for', 'Paris', 'tomorrow']);
    expect(t.wtimes.length).toBe(t.wdurations.length);
  });

  it('offsets a chunk onto the utterance time base', () => {
    const t = textToVisemeTrack('hello there', { durationMs: 900 });
    const o = offsetTrack(t, 2500);
    expect(o.vtimes.map((x) => x - 2500)).toEqual(t.vtimes);
    expect(o.wtimes[0]).toBe(t.wtimes[0]! + 2500);
    expect(o.vdurations).toEqual(t.vdurations);
  });

  it('returns an empty track for empty text', () => {
    const t = textToVisemeTrack('   ', { durationMs: 500 });
    expect(t.visemes).toEqual([]);
    expect(t.words).toEqual([]);
  });
});
