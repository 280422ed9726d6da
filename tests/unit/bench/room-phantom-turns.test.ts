/** The room test's "phantom user turns" (tests/room/turns.ts): an echo utterance counts only if it became a turn. */
import { describe, expect, it } from 'vitest';
import type { TurnStage } from '../../../core/engine/types';
import { phantomTurnsIn } from '../../room/turns';

const mark = (name: TurnStage, turnId: string) => ({ name, turnId });
const reply: TurnStage[] = ['llm-start', 'first-speak', 'first-audio', 'audio-complete', 'echo-path', 'done'];

describe('phantom user turns in a silent reply', () => {
  it('none when the reply plays alone, or when the echo tail is discarded as the reply’s own', () => {
    const alone = reply.map((n) => mark(n, 'r'));
    expect(phantomTurnsIn(alone, 'r')).toBe(0);
    const tail = [...alone, mark('speech-start', 'u1'), mark('end-of-speech', 'u1'), mark('endpoint', 'u1')];
    expect(phantomTurnsIn([...tail, mark('transcript', 'u1'), mark('discarded', 'u1')], 'r')).toBe(0);
    // An onset that never reached an endpoint (dropped as noise first) is not a turn either.
    expect(phantomTurnsIn([...alone, mark('speech-start', 'u2'), mark('discarded', 'u2')], 'r')).toBe(0);
  });

  it('one for each echo utterance that reached an endpoint and was answered or is still open', () => {
    const answered = ['speech-start', 'endpoint', 'transcript', 'llm-start', 'first-speak', 'done'] as TurnStage[];
    const marks = [
      ...reply.map((n) => mark(n, 'r')),
      ...answered.map((n) => mark(n, 'u1')),
      mark('speech-start', 'u2'),
      mark('endpoint', 'u2'),
    ];
    expect(phantomTurnsIn(marks, 'r')).toBe(2);
  });
});
