import { describe, expect, it } from 'vitest';
import { REPLY_WORDS, TranscriptScript } from '../../../core/conversation/scripted-transcript';
import { isEchoOfReplyEnd, isOwnEcho } from '../../../core/engine/backchannel';

describe('the scripted recogniser stand-in', () => {
  it('reports the scripted text only inside its window, and counts the transcriptions it replaced', () => {
    const script = new TranscriptScript();
    expect(script.heard('wzwzw', 0)).toBe('wzwzw');
    script.set('Mm-hmm.', 1000, 500);
    expect(script.heard('wzwzw', 1200)).toBe('Mm-hmm.');
    expect(script.heard('jcals', 1500)).toBe('Mm-hmm.');
    expect(script.heard('wzwzw', 1501)).toBe('wzwzw');
    expect(script.used).toBe(2);
  });

  it('null removes the script at once', () => {
    const script = new TranscriptScript();
    script.set('Yeah.', 0, 10_000);
    script.set(null, 10, 0);
    expect(script.heard('jcals', 20)).toBe('jcals');
    expect(script.used).toBe(0);
  });

  it("the reply's words: each transcription reports the reply's latest words, which the engine takes for its own echo", () => {
    const script = new TranscriptScript();
    const sentences = [
      'The keeper climbed the stairs at dusk.',
      'He wiped the great lens and lit the lamp.',
      'Ships passed safely all night.',
    ];
    script.set(REPLY_WORDS, 0, 60_000);
    script.spoke('An old reply that is over now.', true);
    const spoken: string[] = [];
    sentences.forEach((sentence, i) => {
      script.spoke(sentence, i === 0);
      spoken.push(sentence);
      const heard = script.heard('wzwzw', 100 * (i + 1));
      // Over the reply: its own words (the burst is released as echo, not read as the user's).
      expect(isOwnEcho(heard, spoken.join(' ')), heard).toBe(true);
      expect(heard).not.toMatch(/old reply/);
    });
    // Just after it: its last words (the echo of the reply's end, no turn).
    expect(isEchoOfReplyEnd(script.heard('jcals', 500), spoken.join(' '))).toBe(true);
    expect(script.used).toBe(4);
  });

  it('otherwise: after its window the script reports another text, or the recogniser when none is given', () => {
    const script = new TranscriptScript();
    script.spoke('The keeper climbed the stairs at dusk.', true);
    script.set('Mm-hmm.', 0, 1000, REPLY_WORDS);
    expect(script.heard('wzwzw', 500)).toBe('Mm-hmm.');
    expect(script.heard('wzwzw', 1500)).toBe('keeper climbed the stairs at dusk.');
    script.set(null, 2000, 1000, REPLY_WORDS); // the recogniser's own for the user's voice, then the reply's words
    expect(script.heard('jcals', 2500)).toBe('jcals');
    expect(script.heard('jcals', 3500)).toBe('keeper climbed the stairs at dusk.');
    expect(script.used).toBe(1);
  });
});
