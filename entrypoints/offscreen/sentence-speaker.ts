import type { Character } from '../../core/characters/character';
import { speechTextFor } from '../../core/characters/persona-prompt';
import { SentenceAudioLog } from '../../core/engine/heard-text';
import { ReplyAudioLog } from '../../core/engine/reply-audio';
import type { SpeakMeta } from '../../core/engine/types';
import type { AudioSink, AudioSinkChunk } from '../../core/protocol';
import { expectedSpeechSeconds, GenerationRate, holdFrames, SentenceJitterBuffer } from '../../core/tts/jitter-buffer';
import { ttsTunables } from '../../core/tunables';
import { offscreenTrace } from './turn-trace';
import type { VoiceService } from './voices';

/**
 * One reply sentence through Pocket TTS into the audio sink, in the character's voice, with a head start for a voice
 * slower than real time (core/tts/jitter-buffer.ts). It keeps what was handed to the player: each sentence's audio
 * (what an interruption was heard of) and the reply's samples (for telling its echo from the user).
 */
export class SentenceSpeaker {
  /** How fast the voice generates, learned across sentences (sizes the jitter buffer). */
  private readonly generationRate = new GenerationRate();
  /** Each recent turn's sentences and the audio handed to the player for them. */
  readonly sentenceAudio = new SentenceAudioLog();
  /** What each reply sent to the player (core/engine/echo-match.ts). */
  readonly replyAudio = new ReplyAudioLog();
  /** The turn trace across contexts (test builds only; docs/benchmarks.md, "What the user hears"). */
  private readonly trace = offscreenTrace;

  constructor(
    private readonly voices: VoiceService,
    private readonly audio: AudioSink,
    private readonly character: () => Character,
    /** Tells the user the voice failed. */
    private readonly onFailure: (message: string) => void,
  ) {}

  async speak(sentence: string, signal: AbortSignal, { turnId, index }: SpeakMeta): Promise<void> {
    const character = this.character();
    const spoken = speechTextFor(character, sentence);
    if (signal.aborted) return;
    this.sentenceAudio.begin(turnId, index, sentence);
    if (!spoken.trim()) return this.sentenceAudio.complete(turnId, index);
    // The character's voice (preset or a stored clone), else the bundle's first preset.
    const voiceId = this.voices.pickVoice(character.voice.voiceId);
    this.voices.stopPreview();
    let first = true;
    this.trace?.stamp('tts-call', turnId, index);
    const hold = holdFrames(expectedSpeechSeconds(spoken), this.generationRate.framesPerSecond, ttsTunables.jitterMaxHoldMs);
    const buffer = new SentenceJitterBuffer<AudioSinkChunk>(hold, (chunk) => {
      if (signal.aborted) return;
      this.audio.chunk(turnId, chunk);
      this.replyAudio.push(turnId, chunk.samples, chunk.sampleRate);
      this.sentenceAudio.audio(turnId, index, (chunk.samples.length / chunk.sampleRate) * 1000);
    });
    await this.voices.tts
      .speak(spoken, voiceId, signal, (frame) => {
        if (signal.aborted) return;
        this.generationRate.frame(performance.now());
        if (first) this.trace?.stamp('tts-first-frame', turnId, index, { ...frame.timing, holdFrames: hold });
        buffer.push({
          sampleRate: frame.sampleRate,
          samples: frame.pcm as Float32Array<ArrayBuffer>,
          voiceId,
          ...(first ? { text: sentence } : {}),
        });
        first = false;
      })
      .finally(() => {
        buffer.finish();
        // A sentence cut by the stop is not complete: its audio never all reached the player.
        if (!signal.aborted) this.sentenceAudio.complete(turnId, index);
        this.generationRate.endSentence();
      })
      .catch((err: unknown) => {
        // The sentence for the user; the reason for the debug log (docs/onboarding.md, "Errors").
        console.warn('[sidetalk] the voice failed:', err);
        this.onFailure('The voice could not speak that reply.');
        throw err;
      });
  }
}
