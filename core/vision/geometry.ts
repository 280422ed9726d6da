/** Box arithmetic on normalised corner boxes. */
import type { Box } from './types';

export function area(b: Box): number {
  return Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0);
}

export function intersection(a: Box, b: Box): number {
  const w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  const h = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  return w > 0 && h > 0 ? w * h : 0;
}

/**
 * Intersection over the smaller box. Used for merging rather than IoU because DETR-style detectors often return a
 * whole-object box and a part box for the same thing (a face inside a person): IoU is low, IoMin is ~1.
 */
export function intersectionOverMin(a: Box, b: Box): number {
  const smaller = Math.min(area(a), area(b));
  return smaller > 0 ? intersection(a, b) / smaller : 0;
}

export function centre(b: Box): { x: number; y: number } {
  return { x: (b.x0 + b.x1) / 2, y: (b.y0 + b.y1) / 2 };
}

const clamp01 = (v: number): number => (v < 0 ? 0 : v > 1 ? 1 : v);

/** (centre x, centre y, width, height) → corners, clamped to the frame. */
export function fromCentre(cx: number, cy: number, w: number, h: number): Box {
  return { x0: clamp01(cx - w / 2), y0: clamp01(cy - h / 2), x1: clamp01(cx + w / 2), y1: clamp01(cy + h / 2) };
}
