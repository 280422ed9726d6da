import { describe, expect, it } from 'vitest';
import { answerVisionQuestion, countPhrase, plural, sceneTag } from '../../../core/vision/answers';
import { heldObjects } from '../../../core/vision/holding';
import { matchVisionIntent } from '../../../core/vision/intents';
import type { Box, SceneObject, SceneSnapshot } from '../../../core/vision/types';

const box = (x0: number, y0: number, x1: number, y1: number): Box => ({ x0, y0, x1, y1 });
const obj = (label: string, count: number, boxes: Box[], score = 0.9): SceneObject => ({ label, score, count, boxes });
const scene = (objects: SceneObject[], updatedAt = 1000): SceneSnapshot => ({
  objects,
  personCount: objects.find((o) => o.label === 'person')?.count ?? 0,
  updatedAt,
  frames: 5,
});
const PERSON = obj('person', 1, [box(0.25, 0.05, 0.75, 1)]);
const on = (s: SceneSnapshot, now = 1500) => ({ availability: 'on' as const, scene: s, now });

describe('matchVisionIntent', () => {
  it.each([
    ['What do you see?', 'describe'],
    ['hey, what can you see right now', 'describe'],
    ["What's in front of me?", 'describe'],
    ['How many people are there?', 'count-people'],
    ['how many of us are in the room', 'count-people'],
    ['What am I holding?', 'holding'],
    ["what's in my hand", 'holding'],
    ['Can you see what I’m holding?', 'holding'],
    ['can you see me', 'see-me'],
  ])('%s → %s', (text, intent) => {
    expect(matchVisionIntent(text)).toBe(intent);
  });

  it.each(['What is the weather in Paris?', 'How many days until Friday?', 'Tell me about this page', 'I see what you mean'])(
    'leaves "%s" to the LLM',
    (text) => expect(matchVisionIntent(text)).toBeNull(),
  );
});

describe('wording', () => {
  it('counts and plurals read naturally', () => {
    expect(countPhrase('person', 3)).toBe('three people');
    expect(countPhrase('apple', 1)).toBe('an apple');
    expect(countPhrase('cell phone', 2)).toBe('two phones');
    expect(countPhrase('scissors', 1)).toBe('a pair of scissors');
    expect(plural('wine glass')).toBe('wine glasses');
    expect(plural('knife')).toBe('knives');
  });
});

describe('answerVisionQuestion', () => {
  it('describes people first, then objects, capped', () => {
    const s = scene([
      obj('cup', 2, [box(0, 0, 0.1, 0.1), box(0.2, 0, 0.3, 0.1)], 0.95),
      PERSON,
      obj('laptop', 1, [box(0, 0.5, 0.5, 1)], 0.8),
    ]);
    expect(answerVisionQuestion('describe', on(s))).toBe('I see a person, two cups and a laptop.');
    const many = scene(['cup', 'book', 'laptop', 'clock', 'vase', 'mouse'].map((l) => obj(l, 1, [box(0, 0, 0.1, 0.1)])));
    expect(answerVisionQuestion('describe', on(many))).toBe('I see a cup, a book, a laptop and a clock, and a few other things.');
    expect(answerVisionQuestion('describe', on(scene([])))).toBe("I don't see anything I recognise right now.");
  });

  it('counts people', () => {
    expect(answerVisionQuestion('count-people', on(scene([])))).toBe("I don't see anyone right now.");
    expect(answerVisionQuestion('count-people', on(scene([PERSON])))).toBe('I see one person.');
    expect(answerVisionQuestion('count-people', on(scene([obj('person', 3, [])])))).toBe('I see three people.');
    expect(answerVisionQuestion('see-me', on(scene([PERSON])))).toBe('Yes, I can see you.');
  });

  it('says what is held: an object over the person below the head, not furniture or background', () => {
    const cup = obj('cup', 1, [box(0.45, 0.55, 0.6, 0.75)]);
    const tv = obj('tv', 1, [box(0.4, 0.5, 0.6, 0.7)]);
    const clockOnWall = obj('clock', 1, [box(0.02, 0.02, 0.12, 0.15)]);
    expect(answerVisionQuestion('holding', on(scene([PERSON, cup, tv, clockOnWall])))).toBe(
      "It looks like you're holding a cup.",
    );
    expect(answerVisionQuestion('holding', on(scene([PERSON, clockOnWall])))).toBe(
      "I can't make out anything in your hands. Try holding it up a little closer.",
    );
    expect(answerVisionQuestion('holding', on(scene([cup])))).toBe(
      "I can't see you right now, so I can't tell what you're holding.",
    );
  });

  it('ranks the object over the person above one only in the lower-centre region', () => {
    const personLeft = obj('person', 1, [box(0.0, 0.1, 0.45, 1)]);
    const phoneInHand = obj('cell phone', 1, [box(0.1, 0.5, 0.2, 0.7)], 0.9);
    const bookLowCentre = obj('book', 1, [box(0.55, 0.6, 0.75, 0.8)], 0.9);
    expect(heldObjects(scene([personLeft, phoneInHand, bookLowCentre])).map((h) => h.label)).toEqual(['cell phone', 'book']);
    expect(answerVisionQuestion('holding', on(scene([personLeft, phoneInHand, bookLowCentre])))).toBe(
      "It looks like you're holding a phone and a book.",
    );
  });

  it('says when the camera is off, lost, or the scene is stale instead of guessing', () => {
    const s = scene([PERSON], 1000);
    expect(answerVisionQuestion('describe', { availability: 'off', scene: s, now: 1000 })).toMatch(/camera is off/);
    expect(answerVisionQuestion('describe', { availability: 'camera-lost', scene: s, now: 1000 })).toMatch(/lost the camera/);
    expect(answerVisionQuestion('describe', { availability: 'on', scene: s, now: 1000 + 10_001 })).toMatch(
      /still getting a look/,
    );
    expect(answerVisionQuestion('describe', { availability: 'on', scene: scene([], 0), now: 5000 })).toBe(
      "I don't see anything I recognise right now.",
    );
    expect(answerVisionQuestion('describe', { availability: 'on', scene: { ...s, updatedAt: null }, now: 0 })).toMatch(
      /still getting/,
    );
  });

  it('builds a factual scene tag for the LLM', () => {
    expect(sceneTag(scene([PERSON, obj('cup', 2, [])]))).toBe('[scene: 1 person, 2 cups]');
    expect(sceneTag(scene([]))).toBe('[scene: nothing recognised]');
  });
});
