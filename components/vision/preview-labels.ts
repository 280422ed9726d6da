/** Text and geometry for the camera PiP, separate from the component so Node tests check them without a DOM. */
import { countPhrase, joinList } from '../../core/vision/answers';
import type { PreviewObject } from '../../core/vision/preview-channel';

/** Alt text listing what is detected, e.g. "Camera view: a person and two cups." */
export function previewAltText(objects: PreviewObject[]): string {
  if (objects.length === 0) return 'Camera view: nothing recognised.';
  const counts = new Map<string, number>();
  for (const o of objects) counts.set(o.label, (counts.get(o.label) ?? 0) + 1);
  return `Camera view: ${joinList([...counts].map(([label, n]) => countPhrase(label, n)))}.`;
}

/**
 * CSS percentages for a box over the picture. The picture is shown mirrored (a selfie view, as users expect), so x is
 * flipped here rather than with a CSS transform, which would also mirror the label text.
 */
export function boxStyle(
  box: PreviewObject['box'],
  mirrored: boolean,
): { left: string; top: string; width: string; height: string } {
  const x0 = mirrored ? 1 - box.x1 : box.x0;
  const pct = (v: number) => `${(v * 100).toFixed(2)}%`;
  return { left: pct(x0), top: pct(box.y0), width: pct(box.x1 - box.x0), height: pct(box.y1 - box.y0) };
}

export const STATE_TEXT: Record<'off' | 'starting' | 'on' | 'paused' | 'error', string> = {
  off: 'Camera off',
  starting: 'Starting the camera…',
  on: 'Looking',
  paused: 'Paused while talking',
  error: 'Camera problem',
};
