/**
 * What the user actually heard of an interrupted reply: the reply's sentences in order, each with the length of the
 * audio the player was given for it, and how much of that audio the player rendered before it stopped. The rule and
 * why: docs/interruptions.md.
 */
import { expectedSpeechSeconds } from '../tts/jitter-buffer';

/** One sentence of a reply as the player got it. */
export interface SentenceAudio {
  /** The sentence as the engine handed it to TTS (the history's words). */
  text: string;
  /** Audio handed to the player for it so far, in ms. */
  audioMs: number;
  /** All of its audio was handed over (false while TTS is still producing it). */
  complete: boolean;
}

interface Word {
  /** End of the word in the sentence's text (exclusive): the heard text keeps the punctuation attached to it. */
  end: number;
  weight: number;
}

/** A word's share of its sentence's audio follows its letters and digits (at least one, for "&" or "—"). */
function wordsOf(text: string): Word[] {
  const words: Word[] = [];
  for (const match of text.matchAll(/\S+/g)) {
    const letters = match[0].match(/[\p{L}\p{N}]/gu)?.length ?? 0;
    words.push({ end: match.index + match[0].length, weight: Math.max(1, letters) });
  }
  return words;
}

const weightOf = (text: string) => wordsOf(text).reduce((sum, w) => sum + w.weight, 0);

/**
 * The length a sentence whose audio is still arriving will have: at the pace of this reply's complete sentences
 * (ms per letter), or at the voices' usual pace before any sentence is complete; never less than what arrived.
 */
function expectedMs(sentence: SentenceAudio, sentences: readonly SentenceAudio[]): number {
  const done = sentences.filter((s) => s.complete && s.audioMs > 0);
  const letters = done.reduce((sum, s) => sum + weightOf(s.text), 0);
  const estimate =
    letters > 0
      ? (weightOf(sentence.text) * done.reduce((sum, s) => sum + s.audioMs, 0)) / letters
      : expectedSpeechSeconds(sentence.text) * 1000;
  return Math.max(sentence.audioMs, estimate);
}

/**
 * The heard prefix of the reply, cut at a word boundary: whole sentences whose audio was all played, then the words
 * of the sentence playing at the stop whose estimated time span was at least `wordShare` played. Sentences are
 * joined by one space, as the engine joins them. `playedMs` counts only the reply's own audio (underruns and gaps
 * between sentences are not in it), so it maps onto the sentences' audio laid end to end.
 */
export function heardText(sentences: readonly SentenceAudio[], playedMs: number, wordShare = 0.5): string {
  const heard: string[] = [];
  let start = 0;
  for (const sentence of sentences) {
    const text = sentence.text;
    const into = playedMs - start;
    // A sentence with no audio (nothing in it to say) is passed only when playback went on past it.
    if (sentence.complete && (sentence.audioMs > 0 ? into >= sentence.audioMs : into > 0)) {
      if (text) heard.push(text);
      start += sentence.audioMs;
      continue;
    }
    // The stop fell inside this sentence (or before it, when `into` is at most 0): its heard words, then nothing more.
    const played = Math.min(Math.max(0, into), sentence.audioMs);
    const words = wordsOf(text);
    const total = words.reduce((sum, w) => sum + w.weight, 0);
    const lengthMs = sentence.complete ? sentence.audioMs : expectedMs(sentence, sentences);
    let end = 0;
    let at = 0;
    for (const word of words) {
      const spanMs = (word.weight / total) * lengthMs;
      if (played < at + wordShare * spanMs || played <= 0) break;
      end = word.end;
      at += spanMs;
    }
    if (end > 0) heard.push(text.slice(0, end));
    break;
  }
  return heard.join(' ');
}

/**
 * The sentences of recent turns as the offscreen document hands their audio to the player (the engine asks for a
 * turn's list when the player reports how much of it played). Keeps the last few turns only.
 */
export class SentenceAudioLog {
  private readonly turns = new Map<string, SentenceAudio[]>();

  constructor(private readonly keepTurns = 4) {}

  /** Sentence `index` of the turn starts (its text, no audio yet). */
  begin(turnId: string, index: number, text: string): void {
    let list = this.turns.get(turnId);
    if (!list) {
      list = [];
      this.turns.set(turnId, list);
      for (const old of this.turns.keys()) if (this.turns.size > this.keepTurns) this.turns.delete(old);
    }
    list[index] = { text, audioMs: 0, complete: false };
  }

  /** Audio of sentence `index` was handed to the player. */
  audio(turnId: string, index: number, ms: number): void {
    const sentence = this.turns.get(turnId)?.[index];
    if (sentence) sentence.audioMs += ms;
  }

  /** Every chunk of sentence `index` was handed over (or its synthesis ended early: what arrived is all there is). */
  complete(turnId: string, index: number): void {
    const sentence = this.turns.get(turnId)?.[index];
    if (sentence) sentence.complete = true;
  }

  /** The turn's sentences in order (copies); empty for a turn it never saw or no longer keeps. */
  sentences(turnId: string): SentenceAudio[] {
    return (this.turns.get(turnId) ?? []).filter(Boolean).map((s) => ({ ...s }));
  }
}
