import { describe, expect, it } from 'vitest';
import { phraseCompleteness } from '../../../core/text/phrase-completeness';
import { isSpeakable, sanitizeForSpeech } from '../../../core/text/speech-sanitizer';
import { DegeneracyGuard, isDegenerateText, isNonSpeechTranscript, judgeTranscript } from '../../../core/text/transcript-quality';

describe('sanitizeForSpeech', () => {
  it('strips markdown, lists, links, code and emoji', () => {
    expect(sanitizeForSpeech('**Paris** is _lovely_ 😀 — see [the guide](https://x.org/a).')).toBe(
      'Paris is lovely — see the guide.',
    );
    expect(sanitizeForSpeech('## Tips\n- Pack `light`\n- Bring 🌂 an umbrella\n1. Go early')).toBe(
      'Tips. Pack light. Bring an umbrella. Go early',
    );
    expect(sanitizeForSpeech('Visit https://example.com/page now')).toBe('Visit a link now');
    expect(sanitizeForSpeech('keep snake_case_names and 3.5 * 2')).toBe('keep snake_case_names and 3.5 2');
    expect(isSpeakable(sanitizeForSpeech('🎉🎉 **'))).toBe(false);
  });
});

describe('transcript gates', () => {
  it('flags loops and function-word salad, not ordinary speech', () => {
    expect(judgeTranscript('the with about the with about the with about').garbled).toBe(true);
    expect(judgeTranscript('I I I want want want to go go go home').reason).toBe('word-loop');
    expect(judgeTranscript('of the with for the in about a of').reason).toBe('function-salad');
    expect(judgeTranscript('I want to go to the park and I want to go home').garbled).toBe(false);
    expect(judgeTranscript('what is the weather like in the south of France today').garbled).toBe(false);
    expect(judgeTranscript('yes yes yes').garbled).toBe(false); // too short to judge
  });

  it('treats Whisper non-speech markers as empty', () => {
    expect(isNonSpeechTranscript('[BLANK_AUDIO]')).toBe(true);
    expect(isNonSpeechTranscript(' (music) ')).toBe(true);
    expect(isNonSpeechTranscript('...')).toBe(true);
    expect(isNonSpeechTranscript('Hello.')).toBe(false);
  });

  it('detects degenerate model output', () => {
    expect(isDegenerateText('I think that is great great great')).toBe(true);
    expect(isDegenerateText('the end of the day, the end of the day, the end of the day')).toBe(true);
    expect(isDegenerateText('Sure! Here is a short answer about the sea.')).toBe(false);
    const guard = new DegeneracyGuard();
    expect(guard.accept('The sea is big.')).toBe(true);
    expect(guard.accept('It is blue.')).toBe(true);
    expect(guard.accept('The sea is big.')).toBe(false);
  });

  it('judges phrase completeness for the endpoint', () => {
    expect(phraseCompleteness('I want to plan a trip and')).toBe('trailing');
    expect(phraseCompleteness('so um')).toBe('trailing');
    expect(phraseCompleteness('What time is it?')).toBe('complete');
    expect(phraseCompleteness('what time is it')).toBe('complete');
    expect(phraseCompleteness('Well...')).toBe('trailing');
    expect(phraseCompleteness('Hello')).toBe('neutral');
  });
});
