import { afterEach, describe, expect, it } from 'vitest';
import { resetTunables, setTunable } from '../../../core/tunables';
import { mergeDetections, SceneTracker } from '../../../core/vision/scene-tracker';
import type { Box, Detection } from '../../../core/vision/types';

const box = (x0: number, y0: number, x1: number, y1: number): Box => ({ x0, y0, x1, y1 });
const det = (label: string, score: number, b: Box = box(0.1, 0.1, 0.3, 0.3)): Detection => ({ label, score, box: b });

afterEach(() => resetTunables('vision'));

describe('mergeDetections', () => {
  it('merges same-label boxes that mostly overlap, keeping the best, but not different labels or separate boxes', () => {
    const face = det('person', 0.7, box(0.4, 0.1, 0.6, 0.3));
    const body = det('person', 0.9, box(0.3, 0.05, 0.7, 0.95));
    const other = det('person', 0.8, box(0.0, 0.0, 0.2, 0.9));
    const cup = det('cup', 0.8, box(0.45, 0.15, 0.55, 0.25));
    const merged = mergeDetections([face, body, other, cup], 0.7);
    expect(merged).toEqual([body, other, cup]);
  });
});

describe('SceneTracker', () => {
  it('needs two frames for a new label to appear (one spurious frame is ignored)', () => {
    const t = new SceneTracker();
    expect(t.update({ capturedAt: 0, detections: [det('cup', 0.9)] }).objects).toEqual([]);
    expect(t.update({ capturedAt: 1, detections: [] }).objects).toEqual([]);
    const s = new SceneTracker();
    s.update({ capturedAt: 0, detections: [det('cup', 0.9)] });
    const scene = s.update({ capturedAt: 1, detections: [det('cup', 0.9)] });
    expect(scene.objects.map((o) => o.label)).toEqual(['cup']);
    expect(scene.objects[0]!.score).toBeCloseTo(0.675, 5);
  });

  it('hysteresis: one missed frame keeps the label, two remove it', () => {
    const t = new SceneTracker();
    for (let i = 0; i < 4; i++) t.update({ capturedAt: i, detections: [det('cup', 0.9)] });
    expect(t.update({ capturedAt: 4, detections: [] }).objects.map((o) => o.label)).toEqual(['cup']);
    expect(t.update({ capturedAt: 5, detections: [] }).objects).toEqual([]);
  });

  it('stabilises the person count as the median of the last frames', () => {
    const two = [det('person', 0.9, box(0, 0, 0.4, 1)), det('person', 0.9, box(0.6, 0, 1, 1))];
    const one = [two[0]!];
    const t = new SceneTracker();
    t.update({ capturedAt: 0, detections: two });
    t.update({ capturedAt: 1, detections: two });
    expect(t.update({ capturedAt: 2, detections: one }).personCount).toBe(2); // [2, 2, 1] → 2
    expect(t.update({ capturedAt: 3, detections: two }).personCount).toBe(2);
    t.update({ capturedAt: 4, detections: one });
    expect(t.update({ capturedAt: 5, detections: one }).personCount).toBe(1); // [2, 1, 1] → 1
  });

  it('does not count low-score boxes but keeps a present label at least one', () => {
    const t = new SceneTracker();
    t.update({ capturedAt: 0, detections: [det('cup', 0.95)] });
    t.update({ capturedAt: 1, detections: [det('cup', 0.95)] });
    const scene = t.update({ capturedAt: 2, detections: [det('cup', 0.5)] });
    expect(scene.objects[0]).toMatchObject({ label: 'cup', count: 1 });
  });

  it('ignores a frame older than the newest one and forgets everything on reset', () => {
    const t = new SceneTracker();
    t.update({ capturedAt: 10, detections: [det('cup', 0.9)] });
    t.update({ capturedAt: 11, detections: [det('cup', 0.9)] });
    expect(t.update({ capturedAt: 5, detections: [] }).frames).toBe(2);
    t.reset();
    expect(t.snapshot()).toEqual({ objects: [], personCount: 0, updatedAt: null, frames: 0 });
  });

  it('reads the tunables live (a faster EMA makes one frame enough)', () => {
    expect(setTunable('vision.emaAlpha', 1)).toEqual({ ok: true });
    const t = new SceneTracker();
    expect(t.update({ capturedAt: 0, detections: [det('book', 0.8)] }).objects.map((o) => o.label)).toEqual(['book']);
  });
});
