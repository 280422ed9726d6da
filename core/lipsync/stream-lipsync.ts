/**
 * Lip-sync for streamed TTS: a sentence's text arrives with its first 80 ms frame, and the rest of its audio follows
 * frame by frame, so the sentence's length is unknown while it plays. The whole sentence is laid out (and shaped by
 * the usual rules) on an *expected* time line that starts at its first voiced sample, and each viseme is released to
 * TalkingHead only once audio covering its start has arrived, so the mouth never runs on after the voice stops. The
 * expected pace adapts to the voice: every finished sentence pulls the ms-per-weight estimate toward what it really
 * took. A chunk that already holds most of its sentence (non-streamed playback) is fitted exactly instead.
 */
import type { Viseme } from '../avatar/required-names';
import { lipsyncTunables } from '../tunables';
import { envelopeToJaw, rmsEnvelope, voicedSpan } from './envelope';
import { offsetTrack, textToVisemeTrack, textWeight, type SpeakTrack, type VisemeTrack } from './viseme-track';

export interface StreamChunkLipsync {
  /** Visemes released with this chunk, in ms on the utterance time base (TalkingHead adds its stream start). */
  track: SpeakTrack;
  /** Jaw 0..1 per 20 ms frame of this chunk (chunk-local time). */
  jaw: Float32Array;
  durationMs: number;
}

interface OpenSentence {
  track: VisemeTrack;
  weight: number;
  /** Utterance time of the first voiced sample, once heard. */
  startMs: number | null;
  lastVoicedMs: number;
  /** Next viseme of `track` to release. */
  next: number;
}

export class StreamingLipsync {
  private clockMs = 0;
  private sentence: OpenSentence | null = null;
  private msPerWeight = lipsyncTunables.msPerWeight;

  /** Expected ms per unit of sound weight for the current voice (adapted from finished sentences). */
  get pace(): number {
    return this.msPerWeight;
  }

  /** A new utterance time base (TalkingHead restarted its clock): chunk times count from 0 again. */
  reset(): void {
    this.finishSentence(true);
    this.clockMs = 0;
  }

  /** Barge-in: the open sentence is dropped without teaching the pace (it was cut short). */
  interrupt(): void {
    this.finishSentence(false);
    this.clockMs = 0;
  }

  /** Cumulative audio so far on the current time base. */
  get elapsedMs(): number {
    return this.clockMs;
  }

  chunk(pcm: Float32Array, sampleRate: number, text: string): StreamChunkLipsync {
    const T = lipsyncTunables;
    const durationMs = (pcm.length / sampleRate) * 1000;
    const env = rmsEnvelope(pcm, sampleRate);
    const voiced = voicedSpan(env);
    const chunkStart = this.clockMs;
    this.clockMs += durationMs;
    const jaw = envelopeToJaw(env);
    const empty: SpeakTrack = { words: [], wtimes: [], wdurations: [], visemes: [], vtimes: [], vdurations: [] };

    if (text.trim()) {
      this.finishSentence(true);
      const weight = textWeight(text);
      const expected = weight * this.msPerWeight;
      if (voiced && voiced.end - voiced.start >= T.wholeChunkRatio * expected) {
        this.learnPace(weight, voiced.end - voiced.start);
        return { track: offsetTrack(textToVisemeTrack(text, { durationMs, voiced }), chunkStart), jaw, durationMs };
      }
      const track = textToVisemeTrack(text, { durationMs: expected, voiced: { start: 0, end: expected } });
      this.sentence = { track, weight, startMs: null, lastVoicedMs: 0, next: 0 };
    }
    const s = this.sentence;
    if (!s) return { track: empty, jaw, durationMs };
    if (voiced) {
      s.startMs ??= chunkStart + voiced.start;
      s.lastVoicedMs = chunkStart + voiced.end;
    }
    if (s.startMs === null) return { track: empty, jaw, durationMs };
    const visemes: Viseme[] = [];
    const vtimes: number[] = [];
    const vdurations: number[] = [];
    while (s.next < s.track.visemes.length && s.startMs + s.track.vtimes[s.next]! < this.clockMs) {
      visemes.push(s.track.visemes[s.next]!);
      vtimes.push(Math.round(Math.max(chunkStart, s.startMs + s.track.vtimes[s.next]!)));
      vdurations.push(s.track.vdurations[s.next]!);
      s.next++;
    }
    return { track: { ...empty, visemes, vtimes, vdurations }, jaw, durationMs };
  }

  private finishSentence(learn: boolean): void {
    const s = this.sentence;
    this.sentence = null;
    if (learn && s?.startMs != null) this.learnPace(s.weight, s.lastVoicedMs - s.startMs);
  }

  private learnPace(weight: number, spokenMs: number): void {
    if (weight < 3 || spokenMs < 300) return;
    const base = lipsyncTunables.msPerWeight;
    const seen = Math.min(base * 1.8, Math.max(base * 0.55, spokenMs / weight));
    this.msPerWeight += (seen - this.msPerWeight) * lipsyncTunables.rateAdapt;
  }
}
