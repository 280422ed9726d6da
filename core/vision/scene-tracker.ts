/**
 * Temporal smoothing of detections so the scene the assistant talks about does not flicker with single-frame noise:
 *  1. per frame, boxes of one label that overlap heavily (intersection over the smaller > mergeIoMin) become one;
 *  2. per label, an EMA of the best score (a frame without the label counts 0), with hysteresis: the label becomes
 *     present at `presentOn` and leaves only below `presentOff`, so one missed frame does not make a cup vanish and
 *     one spurious frame does not make it appear;
 *  3. per label, the count is the median of the last `countWindow` frames' counts (boxes ≥ countMinScore).
 * Frame-based rather than time-based on purpose: the cadence changes (search vs established) but each frame is one
 * independent look. Pure; the caller passes each frame's capture time.
 */
import { visionTunables } from '../tunables';
import { intersectionOverMin } from './geometry';
import type { Box, Detection, FrameDetections, SceneObject, SceneSnapshot } from './types';

interface LabelTrack {
  ema: number;
  present: boolean;
  /** Counts in the last `countWindow` frames, oldest first. */
  counts: number[];
  /** Boxes from the latest frame that had this label. */
  boxes: Box[];
}

/** Merges same-label boxes that describe one object; keeps the higher-scoring box. Input order does not matter. */
export function mergeDetections(detections: Detection[], mergeIoMin: number): Detection[] {
  const sorted = [...detections].sort((a, b) => b.score - a.score);
  const kept: Detection[] = [];
  for (const d of sorted) {
    const duplicate = kept.some((k) => k.label === d.label && intersectionOverMin(k.box, d.box) > mergeIoMin);
    if (!duplicate) kept.push(d);
  }
  return kept;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  // Lower median for even windows: counting one person too few is less jarring than one too many.
  return s.length % 2 === 1 ? s[mid]! : s[mid - 1]!;
}

export class SceneTracker {
  private readonly tracks = new Map<string, LabelTrack>();
  private updatedAt: number | null = null;
  private frames = 0;

  /** Folds one frame in and returns the new smoothed scene. Frames older than the newest one are ignored. */
  update(frame: FrameDetections): SceneSnapshot {
    if (this.updatedAt !== null && frame.capturedAt < this.updatedAt) return this.snapshot();
    const t = visionTunables;
    const merged = mergeDetections(frame.detections, t.mergeIoMin);
    const byLabel = new Map<string, Detection[]>();
    for (const d of merged) {
      const list = byLabel.get(d.label) ?? [];
      list.push(d);
      byLabel.set(d.label, list);
    }
    for (const label of byLabel.keys()) {
      if (!this.tracks.has(label)) this.tracks.set(label, { ema: 0, present: false, counts: [], boxes: [] });
    }
    for (const [label, track] of this.tracks) {
      const seen = byLabel.get(label) ?? [];
      const best = seen[0]?.score ?? 0;
      track.ema = t.emaAlpha * best + (1 - t.emaAlpha) * track.ema;
      if (!track.present && track.ema >= t.presentOn) track.present = true;
      else if (track.present && track.ema < t.presentOff) track.present = false;
      track.counts.push(seen.filter((d) => d.score >= t.countMinScore).length);
      while (track.counts.length > t.countWindow) track.counts.shift();
      if (seen.length > 0) track.boxes = seen.map((d) => d.box);
      // Forget labels that faded out completely so the map does not grow with every false positive ever seen.
      if (!track.present && track.ema < 0.01) this.tracks.delete(label);
    }
    this.updatedAt = frame.capturedAt;
    this.frames += 1;
    return this.snapshot();
  }

  snapshot(): SceneSnapshot {
    const objects: SceneObject[] = [];
    for (const [label, track] of this.tracks) {
      if (!track.present) continue;
      // A present label is at least one thing even if the recent counts dipped below countMinScore.
      objects.push({ label, score: track.ema, count: Math.max(1, median(track.counts)), boxes: [...track.boxes] });
    }
    objects.sort((a, b) => b.score - a.score);
    const person = objects.find((o) => o.label === 'person');
    return { objects, personCount: person?.count ?? 0, updatedAt: this.updatedAt, frames: this.frames };
  }

  /** Vision turned off or the camera changed: forget everything. */
  reset(): void {
    this.tracks.clear();
    this.updatedAt = null;
    this.frames = 0;
  }
}
