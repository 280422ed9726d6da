export { splitWords, wordToSounds, type Sound } from './graphemes';
export {
  textToVisemeTrack,
  offsetTrack,
  changesPerSecond,
  type SpeakTrack,
  type VisemeTrack,
  type TrackOptions,
  type TimedViseme,
} from './viseme-track';
export { rmsEnvelope, voicedSpan, envelopeToJaw, sampleCurve, ENVELOPE_FRAME_MS } from './envelope';
export { lipsyncForChunk, type ChunkLipsync } from './chunk-lipsync';
