import { describe, expect, it } from 'vitest';
import { TranscriptScript } from '../../../core/conversation/scripted-transcript';

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
});
