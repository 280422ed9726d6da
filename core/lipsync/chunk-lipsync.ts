/**
 * One call per TTS chunk: PCM + its text → the audio-aligned viseme track and jaw curve, with times already offset
 * to the utterance's time base (TalkingHead streaming adds them to the moment the first chunk started playing).
 */
import { envelopeToJaw, rmsEnvelope, voicedSpan } from './envelope';
import { offsetTrack, textToVisemeTrack, type VisemeTrack } from './viseme-track';

export interface ChunkLipsync {
  track: VisemeTrack;
  /** Jaw 0..1 per 20 ms frame of this chunk (local time, not offset). */
  jaw: Float32Array;
  durationMs: number;
}

export function lipsyncForChunk(pcm: Float32Array, sampleRate: number, text: string, offsetMs = 0): ChunkLipsync {
  const durationMs = (pcm.length / sampleRate) * 1000;
  const env = rmsEnvelope(pcm, sampleRate);
  const voiced = voicedSpan(env) ?? undefined;
  const track = voiced ? textToVisemeTrack(text, { durationMs, voiced }) : textToVisemeTrack('', { durationMs });
  return { track: offsetTrack(track, offsetMs), jaw: envelopeToJaw(env), durationMs };
}
