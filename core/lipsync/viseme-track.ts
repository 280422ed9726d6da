/**
 * Text + the real length of its audio → a timed viseme track in TalkingHead's `speakAudio`/`streamAudio` format.
 *
 * Pocket TTS gives no timestamps, so sounds are spread over the chunk's voiced span by relative weight and then shaped
 * by animation practice (reference §10, Rhubarb/JALI): lips close on m/b/p long enough to be seen, rounded shapes
 * start early, short tongue-only consonants take the vowel's shape, nothing flickers (minimum hold, change-rate cap),
 * and pauses relax the mouth.
 */
import { lipsyncTunables } from '../tunables';
import type { Viseme } from '../avatar/required-names';
import { splitWords, wordToSounds, type Sound } from './graphemes';

export interface TimedViseme {
  viseme: Viseme;
  start: number;
  end: number;
  strong: boolean;
}

/** TalkingHead's lip-sync fields (ms, relative to the first sample of the audio they go with). */
export interface SpeakTrack {
  words: string[];
  wtimes: number[];
  wdurations: number[];
  visemes: Viseme[];
  vtimes: number[];
  vdurations: number[];
}

export interface VisemeTrack extends SpeakTrack {
  /** Silent gaps long enough for the mouth to relax (ms). */
  pauses: Array<{ start: number; end: number }>;
}

export interface TrackOptions {
  /** Audio length of this chunk in ms. */
  durationMs: number;
  /** Voiced part of the audio (from `voicedSpan`); defaults to the whole chunk minus a little lead-in/tail. */
  voiced?: { start: number; end: number };
}

interface Slot {
  sound: Sound | null; // null = pause
  word: number;
  weight: number;
  start: number;
  end: number;
}

const TONGUE_ONLY = new Set<Viseme>(['DD', 'nn', 'kk', 'TH']);
const ROUNDED = new Set<Viseme>(['O', 'U']);
const PAUSE_WEIGHT: Record<string, number> = { ',': 2.5, ';': 3, ':': 3, '-': 1.5, '—': 2.5, '.': 4, '!': 4, '?': 4 };

function soundWeight(s: Sound): number {
  if (s.vowel) return s.strong ? 1.4 : 0.85;
  if (s.viseme === 'PP' || s.viseme === 'FF') return 1;
  return 0.75;
}

function layout(text: string, start: number, end: number): { slots: Slot[]; words: string[] } {
  const slots: Slot[] = [];
  const parsed = splitWords(text);
  parsed.forEach(({ word, punct }, wi) => {
    for (const s of wordToSounds(word)) slots.push({ sound: s, word: wi, weight: soundWeight(s), start: 0, end: 0 });
    const p = [...punct].reduce((m, c) => Math.max(m, PAUSE_WEIGHT[c] ?? 0), 0);
    if (p > 0 && wi < parsed.length - 1) slots.push({ sound: null, word: wi, weight: p, start: 0, end: 0 });
  });
  const total = slots.reduce((s, x) => s + x.weight, 0);
  let t = start;
  for (const s of slots) {
    s.start = t;
    t += ((end - start) * s.weight) / Math.max(total, 1e-9);
    s.end = t;
  }
  return { slots, words: parsed.map((p) => p.word) };
}

/** Total relative sound weight of a text (sounds + inner pauses): its expected speaking time ∝ this. */
export function textWeight(text: string): number {
  return layout(text, 0, 1).slots.reduce((s, x) => s + x.weight, 0);
}

function mustHit(v: Viseme): boolean {
  return v === 'PP' || v === 'FF';
}

/** Removes segment i by giving its time to a neighbour that touches it (previous preferred). */
function absorb(segs: TimedViseme[], i: number): void {
  const s = segs[i]!;
  const prev = segs[i - 1];
  const next = segs[i + 1];
  const touchPrev = prev && Math.abs(prev.end - s.start) < 1e-6;
  const touchNext = next && Math.abs(next.start - s.end) < 1e-6;
  if (touchPrev && (!touchNext || !mustHit(prev.viseme) || mustHit(next!.viseme))) prev.end = s.end;
  else if (touchNext) next!.start = s.start;
  segs.splice(i, 1);
}

function mergeSame(segs: TimedViseme[]): void {
  for (let i = segs.length - 1; i > 0; i--) {
    const a = segs[i - 1]!;
    const b = segs[i]!;
    if (a.viseme === b.viseme && Math.abs(a.end - b.start) < 1e-6) {
      a.end = b.end;
      a.strong = a.strong || b.strong;
      segs.splice(i, 1);
    }
  }
}

/** Grows a short closure to `min` ms by borrowing evenly from touching neighbours. */
function growTo(segs: TimedViseme[], i: number, min: number): void {
  const s = segs[i]!;
  const need = min - (s.end - s.start);
  if (need <= 0) return;
  const prev = segs[i - 1];
  const next = segs[i + 1];
  const spare = (n: TimedViseme | undefined, touching: boolean): number =>
    n && touching && !mustHit(n.viseme) ? Math.max(0, n.end - n.start - 30) : 0;
  const sp = spare(prev, !!prev && Math.abs(prev.end - s.start) < 1e-6);
  const sn = spare(next, !!next && Math.abs(next.start - s.end) < 1e-6);
  // Untouched sides (pauses) give time freely: a closure may start inside silence.
  const freeBefore = !prev || prev.end < s.start - 1e-6 ? need : 0;
  const takeBefore = Math.min(need / 2 + Math.max(0, need / 2 - sn), Math.max(sp, freeBefore));
  const takeAfter = Math.min(need - takeBefore, sn);
  s.start -= takeBefore;
  if (prev && prev.end > s.start) prev.end = s.start;
  s.end += takeAfter;
  if (next && next.start < s.end) next.start = s.end;
}

/** A shape between two closures is the lip release; dropping it would fuse two closures into one long one. */
function isRelease(segs: TimedViseme[], i: number): boolean {
  const prev = segs[i - 1];
  const next = segs[i + 1];
  return !!prev && !!next && mustHit(prev.viseme) && mustHit(next.viseme);
}

function priority(segs: TimedViseme[], i: number): number {
  const s = segs[i]!;
  if (mustHit(s.viseme) || isRelease(segs, i)) return Infinity;
  if (ROUNDED.has(s.viseme)) return 3.5;
  if (s.strong) return 3;
  if (['aa', 'E', 'I'].includes(s.viseme)) return 2;
  return 1;
}

/** Builds the track for one chunk of speech. */
export function textToVisemeTrack(text: string, opts: TrackOptions): VisemeTrack {
  const T = lipsyncTunables;
  const dur = Math.max(0, opts.durationMs);
  const voiced = opts.voiced ?? { start: Math.min(30, dur * 0.05), end: Math.max(0, dur - Math.min(60, dur * 0.08)) };
  const v0 = Math.max(0, Math.min(voiced.start, dur));
  const v1 = Math.max(v0, Math.min(voiced.end, dur));
  const { slots, words } = layout(text, v0, v1);

  // Word timing straight from the layout (before shaping): TalkingHead uses it for subtitles only.
  const wtimes: number[] = [];
  const wdurations: number[] = [];
  words.forEach((_w, wi) => {
    const mine = slots.filter((s) => s.word === wi && s.sound);
    const a = mine[0]?.start ?? (wtimes.length ? wtimes[wtimes.length - 1]! + wdurations[wdurations.length - 1]! : v0);
    const b = mine[mine.length - 1]?.end ?? a;
    wtimes.push(Math.round(a));
    wdurations.push(Math.max(1, Math.round(b - a)));
  });

  // 1. Sounds → segments; weak open vowels become the smaller E so only strong vowels open wide.
  const segs: TimedViseme[] = [];
  for (const s of slots) {
    if (!s.sound) continue;
    const viseme: Viseme = s.sound.vowel && !s.sound.strong && s.sound.viseme === 'aa' ? 'E' : s.sound.viseme;
    segs.push({ viseme, start: s.start, end: s.end, strong: s.sound.strong });
  }
  // 2. Coarticulation: short tongue-only consonants keep the lips in the neighbouring vowel's shape.
  for (let i = segs.length - 1; i >= 0; i--) {
    const s = segs[i]!;
    if (TONGUE_ONLY.has(s.viseme) && s.end - s.start < T.consonantMinMs && segs.length > 1) absorb(segs, i);
  }
  mergeSame(segs);
  // 3. Closures must be seen.
  for (let i = 0; i < segs.length; i++) {
    const v = segs[i]!.viseme;
    if (v === 'PP') growTo(segs, i, T.closureMinMs);
    else if (v === 'FF') growTo(segs, i, T.labiodentalMinMs);
  }
  // 4. No flicker: short shapes (other than closures) merge into a neighbour.
  for (let i = segs.length - 1; i >= 0; i--) {
    const s = segs[i]!;
    if (!mustHit(s.viseme) && !isRelease(segs, i) && s.end - s.start < T.minHoldMs && segs.length > 1) absorb(segs, i);
  }
  mergeSame(segs);
  // 5. Change-rate cap over the voiced span: drop the least important shapes first.
  const maxCount = Math.max(1, Math.floor((T.maxChangesPerSec * (v1 - v0)) / 1000));
  while (segs.length > maxCount) {
    let best = -1;
    for (let i = 0; i < segs.length; i++) {
      const a = segs[i]!;
      const pa = priority(segs, i);
      if (pa === Infinity) continue;
      const b = best >= 0 ? segs[best]! : null;
      const pb = best >= 0 ? priority(segs, best) : Infinity;
      if (!b || pa < pb || (pa === pb && a.end - a.start < b.end - b.start)) best = i;
    }
    if (best < 0) break;
    absorb(segs, best);
    mergeSame(segs);
  }
  // 6. Anticipation: rounded shapes start early, eating into the previous shape but never into a closure's minimum.
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i]!;
    if (!ROUNDED.has(s.viseme)) continue;
    const prev = segs[i - 1];
    let lead = T.roundLeadMs;
    if (prev && prev.end >= s.start - 1e-6) {
      const floor = prev.start + (mustHit(prev.viseme) ? T.closureMinMs : T.minHoldMs * 0.6);
      lead = Math.max(0, Math.min(lead, prev.end - floor));
      prev.end -= lead;
    }
    s.start = Math.max(0, s.start - lead);
  }
  // 7. Pauses: short gaps hold the shape, long ones relax (no viseme).
  const pauses: Array<{ start: number; end: number }> = [];
  for (let i = 0; i < segs.length - 1; i++) {
    const gap = segs[i + 1]!.start - segs[i]!.end;
    if (gap <= 1e-6) continue;
    if (gap < T.pauseRelaxMs) segs[i]!.end = segs[i + 1]!.start;
    else pauses.push({ start: segs[i]!.end, end: segs[i + 1]!.start });
  }
  return {
    words,
    wtimes,
    wdurations,
    visemes: segs.map((s) => s.viseme),
    vtimes: segs.map((s) => Math.round(s.start)),
    vdurations: segs.map((s) => Math.max(1, Math.round(s.end - s.start))),
    pauses,
  };
}

/** Shifts a track to a later start (streaming: times are cumulative from the first sample of the utterance). */
export function offsetTrack<T extends SpeakTrack & { pauses?: Array<{ start: number; end: number }> }>(
  track: T,
  offsetMs: number,
): T {
  const out: T = { ...track, wtimes: track.wtimes.map((t) => t + offsetMs), vtimes: track.vtimes.map((t) => t + offsetMs) };
  if (track.pauses) out.pauses = track.pauses.map((p) => ({ start: p.start + offsetMs, end: p.end + offsetMs }));
  return out;
}

/** Mouth-shape changes per second over [from, to] ms (tests, benches). */
export function changesPerSecond(track: SpeakTrack, from: number, to: number): number {
  const n = track.vtimes.filter((t) => t >= from && t < to).length;
  return (n * 1000) / Math.max(1, to - from);
}
