/**
 * Short spoken answers built from the smoothed scene, without the LLM: measurements answer these questions better
 * than a small model guessing, and they are instant. Left/right is never mentioned (the preview is mirrored, so either
 * choice confuses someone). Sentences are plain text for TTS: no digits for small numbers, no symbols.
 */
import { visionTunables } from '../tunables';
import { heldObjects } from './holding';
import type { VisionIntent } from './intents';
import type { SceneObject, SceneSnapshot } from './types';

export type VisionAvailability = 'off' | 'starting' | 'on' | 'camera-lost';

/** COCO names as people say them. */
const SPOKEN: Record<string, string> = {
  'cell phone': 'phone',
  tv: 'TV',
  'dining table': 'table',
  'hair drier': 'hair dryer',
  'sports ball': 'ball',
  'potted plant': 'plant',
};

const IRREGULAR_PLURAL: Record<string, string> = {
  person: 'people',
  mouse: 'mice',
  knife: 'knives',
  sheep: 'sheep',
  skis: 'skis',
  scissors: 'scissors',
};

const NUMBER_WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

export function spokenName(label: string): string {
  return SPOKEN[label] ?? label;
}

export function numberWord(n: number): string {
  return NUMBER_WORDS[n] ?? String(n);
}

export function plural(label: string): string {
  const name = spokenName(label);
  const irregular = IRREGULAR_PLURAL[name];
  if (irregular) return irregular;
  const words = name.split(' ');
  const last = words.pop()!;
  const p = /(?:s|x|z|ch|sh)$/.test(last) ? `${last}es` : /[^aeiou]y$/.test(last) ? `${last.slice(0, -1)}ies` : `${last}s`;
  return [...words, p].join(' ');
}

/** "a cup", "an apple", "two cups". Plural names that are mass-like (scissors, skis) get "a pair of". */
export function countPhrase(label: string, count: number): string {
  const name = spokenName(label);
  if (count === 1) {
    if (name === 'scissors' || name === 'skis') return `a pair of ${name}`;
    if (name === 'TV') return 'a TV';
    return `${/^[aeiou]/.test(name) ? 'an' : 'a'} ${name}`;
  }
  return `${numberWord(count)} ${plural(label)}`;
}

/** "a", "a and b", "a, b and c". */
export function joinList(items: string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

export interface AnswerContext {
  availability: VisionAvailability;
  scene: SceneSnapshot;
  /** Injected clock, ms (same clock as the frames' capturedAt). */
  now: number;
}

/** A line for every case that is not about the scene itself (camera off, no fresh look yet); null when the scene is usable. */
function availabilityLine(ctx: AnswerContext): string | null {
  if (ctx.availability === 'off') return "My camera is off. Turn on vision in the Sidetalk popup and I'll take a look.";
  if (ctx.availability === 'camera-lost') return "I've lost the camera. Check that it's plugged in, then turn vision on again.";
  const fresh = ctx.scene.updatedAt !== null && ctx.now - ctx.scene.updatedAt <= visionTunables.staleSceneMs;
  if (ctx.availability === 'starting' || !fresh) return "I'm still getting a look. Ask me again in a moment.";
  return null;
}

function describe(scene: SceneSnapshot): string {
  if (scene.objects.length === 0) return "I don't see anything I recognise right now.";
  // People first (that is what a user expects to hear about), then the most certain objects.
  const ordered: SceneObject[] = [
    ...scene.objects.filter((o) => o.label === 'person'),
    ...scene.objects.filter((o) => o.label !== 'person'),
  ].slice(0, visionTunables.maxSpokenObjects);
  const more = scene.objects.length > ordered.length ? ', and a few other things' : '';
  return `I see ${joinList(ordered.map((o) => countPhrase(o.label, o.count)))}${more}.`;
}

function countPeople(scene: SceneSnapshot): string {
  if (scene.personCount === 0) return "I don't see anyone right now.";
  if (scene.personCount === 1) return 'I see one person.';
  return `I see ${numberWord(scene.personCount)} people.`;
}

function holding(scene: SceneSnapshot): string {
  if (scene.personCount === 0) return "I can't see you right now, so I can't tell what you're holding.";
  const held = heldObjects(scene).slice(0, 2);
  if (held.length === 0) return "I can't make out anything in your hands. Try holding it up a little closer.";
  return `It looks like you're holding ${joinList(held.map((h) => countPhrase(h.label, 1)))}.`;
}

function seeMe(scene: SceneSnapshot): string {
  if (scene.personCount === 0) return "I can't see anyone right now.";
  return scene.personCount === 1 ? 'Yes, I can see you.' : `Yes. I can see ${numberWord(scene.personCount)} people.`;
}

export function answerVisionQuestion(intent: VisionIntent, ctx: AnswerContext): string {
  const unavailable = availabilityLine(ctx);
  if (unavailable) return unavailable;
  switch (intent) {
    case 'describe':
      return describe(ctx.scene);
    case 'count-people':
      return countPeople(ctx.scene);
    case 'holding':
      return holding(ctx.scene);
    case 'see-me':
      return seeMe(ctx.scene);
  }
}

/**
 * A compact factual tag for questions vision does not answer itself ("what colour is my shirt?"): the LLM gets
 * measurements, never pixels. Quoted as data like page text.
 */
export function sceneTag(scene: SceneSnapshot): string {
  if (scene.objects.length === 0) return '[scene: nothing recognised]';
  return `[scene: ${scene.objects.map((o) => `${o.count} ${o.count === 1 ? spokenName(o.label) : plural(o.label)}`).join(', ')}]`;
}
