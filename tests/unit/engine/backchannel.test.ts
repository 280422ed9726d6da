/** Backchannel or interruption, by what ASR heard in a short burst over the reply (core/engine/backchannel.ts). */
import { describe, expect, it } from 'vitest';
import { isBackchannel, isOwnEcho, readBurstWords } from '../../../core/engine/backchannel';

describe('isBackchannel', () => {
  it('listener tokens, alone or up to three, in the languages the models transcribe', () => {
    for (const t of [
      'Mm-hm.',
      'Yeah.',
      'yeah yeah',
      'Right, right.',
      'Okay.',
      'I see.',
      'Got it!',
      'Uh-huh',
      'Ja, genau.',
      "D'accord.",
      'Sí, claro.',
    ])
      expect(isBackchannel(t), t).toBe(true);
  });

  it('no words at all (a cough, a breath, a sound ASR writes as a tag) is one too', () => {
    for (const t of ['', '  ', '[cough]', '(coughs)', '[BLANK_AUDIO]']) expect(isBackchannel(t), t).toBe(true);
  });

  it('anything that asks for the floor is not: commands, questions, a fourth token, an unknown word', () => {
    for (const t of ['Stop.', 'Wait.', 'No.', 'Hold on', 'What?', 'Yeah but why?', 'yeah yeah yeah yeah', 'Attends.', 'Para.'])
      expect(isBackchannel(t), t).toBe(false);
  });

  it("the reply's own words coming back (an echo the canceller let through) are not an interruption", async () => {
    const spoken = 'Once upon a time, a small dragon lived in the hills above a quiet village.';
    expect(isOwnEcho('a small dragon lived', spoken)).toBe(true);
    expect(isOwnEcho('Dragon lived in the hills?', spoken)).toBe(true);
    expect(isOwnEcho('stop', 'The bus stop is near.')).toBe(false);
    expect(isOwnEcho('stop the story', spoken)).toBe(false);
    // Misheard words in the run still count; the reply's words in the user's own order do not.
    expect(isOwnEcho('a small wagon lived', spoken)).toBe(true);
    expect(isOwnEcho('small dragon that lived', spoken)).toBe(true);
    expect(isOwnEcho('dragon lived hills', spoken)).toBe(true);
    expect(isOwnEcho('and the old village in', spoken)).toBe(false);
    // Two words in order are in any long reply: "and … the" is not its echo, nor are two of its words alone.
    const story = 'Every morning it counted the sheep in the valley and sang to the river.';
    expect(isOwnEcho('and the old', story)).toBe(false);
    expect(isOwnEcho('the valley', story)).toBe(false);
    expect(isOwnEcho('and sang to', story)).toBe(true);
    expect(isOwnEcho('what village in the story', spoken)).toBe(false);
    const read = (text: string) => readBurstWords(new Float32Array(512), () => Promise.resolve({ text }), spoken);
    expect(await read('above a quiet village')).toBe('own-echo');
    expect(await read('wait, what village')).toBe('interrupt');
    // A listener's tokens are the user's voice, not the echo: the reply goes on, and the floor learns nothing of it.
    expect(await read('mm-hm yeah')).toBe('backchannel');
  });

  it('a burst ASR cannot read is left alone (the reply goes on)', async () => {
    expect(await readBurstWords(new Float32Array(512), () => Promise.reject(new Error('aborted')))).toBe('backchannel');
    expect(await readBurstWords(new Float32Array(512), () => Promise.resolve({ text: 'stop' }))).toBe('interrupt');
  });
});
