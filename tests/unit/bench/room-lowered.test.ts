/**
 * The room sweep's "voice onset → reply lowered" (tests/room/signal.ts `endOfLastLoud`): the time the speakers stayed
 * below the reply's own level, on a speech-like signal with pauses between words, ducked by 20 dB or cut.
 */
import { describe, expect, it } from 'vitest';
import { RIG_RATE } from '../../room/rig';
import { activeRms, bestMatch, endOfLastLoud, findTemplate } from '../../room/signal';

/** Words of 180 ms (a 220 Hz tone whose level wanders ±4 dB) with 120 ms pauses, `seconds` long. */
function speech(seconds: number): Float32Array {
  const s = new Float32Array(Math.round(seconds * RIG_RATE));
  for (let i = 0; i < s.length; i++) {
    const t = i / RIG_RATE;
    const inWord = t % 0.3 < 0.18;
    const wander = 10 ** ((4 * Math.sin(2 * Math.PI * 0.7 * t)) / 20);
    s[i] = inWord ? 0.1 * wander * Math.sin(2 * Math.PI * 220 * t) : 0;
  }
  return s;
}

const ms = (samples: number) => (samples / RIG_RATE) * 1000;
const floorBelow = (s: Float32Array, db: number) => activeRms(s.subarray(0, RIG_RATE)) * 10 ** (-db / 20);

describe('when the reply was lowered, from the speakers', () => {
  it('a duck of 20 dB at 1.23 s: lowered at the duck, whatever the pauses between words', () => {
    const s = speech(3);
    const duckAt = Math.round(1.23 * RIG_RATE);
    for (let i = duckAt; i < s.length; i++) s[i]! *= 0.1;
    const end = ms(endOfLastLoud(s, floorBelow(s, 10)));
    expect(end).toBeGreaterThan(1180);
    expect(end).toBeLessThanOrEqual(1280);
  });

  it('a reply that kept playing is never lowered: the last loud window is at its end', () => {
    const s = speech(3);
    expect(ms(endOfLastLoud(s, floorBelow(s, 10)))).toBeGreaterThan(2800);
  });

  it('a cut inside a pause: lowered at the last word before it', () => {
    const s = speech(3);
    s.fill(0, Math.round(1.5 * RIG_RATE)); // the word at 1.5 s never plays; the one at 1.2–1.38 s did
    const end = ms(endOfLastLoud(s, floorBelow(s, 10)));
    expect(end).toBeGreaterThan(1300);
    expect(end).toBeLessThanOrEqual(1400);
  });

  it('nothing loud after the voice (it began in a gap of the reply): 0', () => {
    expect(endOfLastLoud(new Float32Array(RIG_RATE), 1e-3)).toBe(0);
  });
});

describe("finding the user's voice in the room's recording", () => {
  /** A "voice" unlike the reply: 330 Hz syllables of 100 ms with 50 ms gaps. */
  const voice = Float32Array.from({ length: Math.round(0.6 * RIG_RATE) }, (_, i) =>
    (i / RIG_RATE) % 0.15 < 0.1 ? 0.1 * Math.sin((2 * Math.PI * 330 * i) / RIG_RATE) : 0,
  );

  it('finds a phrase under an unrelated sound as loud as it, to the millisecond', () => {
    const room = speech(3);
    const at = Math.round(1.337 * RIG_RATE);
    for (let i = 0; i < voice.length; i++) room[at + i]! += voice[i]!;
    expect(Math.abs(ms(findTemplate(room, voice)) - 1337)).toBeLessThanOrEqual(1);
  });

  it('the first time the phrase is heard, not a later, cleaner copy of it (the earliest strong match)', () => {
    const room = new Float32Array(3 * RIG_RATE);
    const first = Math.round(0.4 * RIG_RATE);
    const later = Math.round(2.1 * RIG_RATE);
    const under = speech(1);
    for (let i = 0; i < voice.length; i++) {
      room[first + i] = voice[i]! + 0.3 * under[i]!; // heard over the reply
      room[later + i] = voice[i]!; // the same sound again, alone
    }
    expect(Math.abs(ms(bestMatch(room, voice).index) - 2100)).toBeLessThanOrEqual(1);
    expect(Math.abs(ms(bestMatch(room, voice, 0.85).index) - 400)).toBeLessThanOrEqual(1);
  });

  it('no match when the phrase is not there', () => {
    expect(findTemplate(speech(3), voice)).toBe(-1);
  });
});
