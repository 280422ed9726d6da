import { describe, expect, it } from 'vitest';
import { applyPronunciations } from '../../../core/characters';

const say = (text: string, list: { word: string; sayAs: string }[]) => applyPronunciations(text, list);
const SIDETALK = [{ word: 'Sidetalk', sayAs: 'Side talk' }];

describe('pronunciation overrides', () => {
  it.each([
    ['Sidetalk is here.', 'Side talk is here.'],
    ['I love sidetalk!', 'I love Side talk!'],
    ['SIDETALK, please.', 'Side talk, please.'],
    ['(Sidetalk)', '(Side talk)'],
    ['"Sidetalk"?', '"Side talk"?'],
    ['Sidetalk—fast', 'Side talk—fast'],
    ["Sidetalk's voice", "Side talk's voice"],
    ['Sidetalk\u2019s voice', 'Side talk\u2019s voice'],
  ])('replaces the whole word in %j', (input, expected) => {
    expect(say(input, SIDETALK)).toBe(expected);
  });

  it.each(['Sidetalks are fun', 'MySidetalk', 'Sidetalk2', 'sidetalked', "Sidetalk'ed"])(
    'leaves %j alone (not a word boundary)',
    (input) => {
      expect(say(input, SIDETALK)).toBe(input);
    },
  );

  it('handles unicode letters as word characters', () => {
    expect(say('Café and cafés', [{ word: 'café', sayAs: 'ka-fay' }])).toBe('ka-fay and cafés');
    expect(say('naïveté', [{ word: 'naïve', sayAs: 'nah-eve' }])).toBe('naïveté');
  });

  it('prefers the longest match, allows any whitespace inside multi-word entries, never re-replaces', () => {
    const list = [
      { word: 'New', sayAs: 'Gnu' },
      { word: 'New York', sayAs: 'Noo Yawk' },
      { word: 'Gnu', sayAs: 'WRONG' },
    ];
    expect(say('New York and New\nYork, New Yorker, New!', list)).toBe('Noo Yawk and Noo Yawk, Gnu Yorker, Gnu!');
  });

  it('treats regex characters in words literally and matches symbol-ending words', () => {
    expect(
      say('I use C++ and C# daily; C is old.', [
        { word: 'C++', sayAs: 'C plus plus' },
        { word: 'C#', sayAs: 'C sharp' },
      ]),
    ).toBe('I use C plus plus and C sharp daily; C is old.');
    expect(say('a.b aXb', [{ word: 'a.b', sayAs: 'A dot B' }])).toBe('A dot B aXb');
  });

  it("does not match inside words with apostrophes (O'Neil) and is a no-op for an empty table", () => {
    expect(say("O'Neil and Neil", [{ word: 'Neil', sayAs: 'Neel' }])).toBe("O'Neil and Neel");
    expect(say('Anything **at all**', [])).toBe('Anything **at all**');
  });
});
