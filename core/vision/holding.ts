/**
 * "What am I holding?" from boxes alone. A webcam user holds things in front of the chest or up towards the camera,
 * so a held object (a) overlaps the person's box below the head, or (b) when the person box is unreliable (hands and
 * object cover the torso, person cut off by the frame), sits in the lower-centre region of the frame. Furniture and
 * large appliances are never "held". Order: best evidence first.
 */
import { area, centre, intersection } from './geometry';
import type { SceneSnapshot } from './types';

/** COCO classes that a person in front of a webcam cannot be holding. */
const NOT_HANDHELD = new Set([
  'person',
  'bicycle',
  'car',
  'motorcycle',
  'airplane',
  'bus',
  'train',
  'truck',
  'boat',
  'traffic light',
  'fire hydrant',
  'stop sign',
  'parking meter',
  'bench',
  'horse',
  'sheep',
  'cow',
  'elephant',
  'bear',
  'zebra',
  'giraffe',
  'chair',
  'couch',
  'potted plant',
  'bed',
  'dining table',
  'toilet',
  'tv',
  'microwave',
  'oven',
  'sink',
  'refrigerator',
  'tie',
]);

/** Share of the frame above which an object is background, not something in a hand. */
const MAX_HELD_AREA = 0.45;
/** The top part of a person box is the head; an object there is more likely behind the person than in a hand. */
const HEAD_SHARE = 0.2;

export interface HeldObject {
  label: string;
  /** 0..1: evidence strength (score × where it is). */
  confidence: number;
}

export function heldObjects(scene: SceneSnapshot): HeldObject[] {
  const people = scene.objects.find((o) => o.label === 'person');
  if (!people) return [];
  const out: HeldObject[] = [];
  for (const object of scene.objects) {
    if (NOT_HANDHELD.has(object.label)) continue;
    let best = 0;
    for (const box of object.boxes) {
      if (area(box) > MAX_HELD_AREA) continue;
      const c = centre(box);
      let where = 0;
      for (const person of people.boxes) {
        const belowHead = person.y0 + HEAD_SHARE * (person.y1 - person.y0);
        const overlap = area(box) > 0 ? intersection(box, person) / area(box) : 0;
        if (overlap >= 0.5 && c.y >= belowHead) where = Math.max(where, 1);
      }
      // Lower-centre of the frame: where hands are when the person box is cut off or swallowed by the object.
      if (c.x >= 0.2 && c.x <= 0.8 && c.y >= 0.45) where = Math.max(where, 0.7);
      best = Math.max(best, where * object.score);
    }
    if (best > 0) out.push({ label: object.label, confidence: best });
  }
  return out.sort((a, b) => b.confidence - a.confidence);
}
