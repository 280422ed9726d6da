/**
 * Turns raw DETR-family outputs (D-FINE, RT-DETR) into detections the way those models were trained: an independent
 * sigmoid per class (focal loss), the best (query, class) pairs over the flattened grid, boxes as normalised
 * (cx, cy, w, h). transformers.js's own post_process_object_detection applies a softmax and treats the LAST class as
 * background, which is right for DETR but for an 80-class COCO D-FINE silently drops 'toothbrush' and inflates weak
 * scores, so the detector decodes here instead.
 */
import { fromCentre } from './geometry';
import type { Detection } from './types';

export interface RawDetectorOutput {
  /** [queries × classes] logits of one image, row-major. */
  logits: ArrayLike<number>;
  /** [queries × 4] boxes (cx, cy, w, h) of one image, row-major, normalised. */
  boxes: ArrayLike<number>;
  queries: number;
  classes: number;
}

export interface DecodeOptions {
  /** Class index → name (config.json id2label). Unknown indices are skipped. */
  labels: ReadonlyArray<string | undefined>;
  threshold: number;
  maxDetections: number;
}

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

export function decodeDetections(raw: RawDetectorOutput, options: DecodeOptions): Detection[] {
  const { logits, boxes, queries, classes } = raw;
  if (logits.length < queries * classes || boxes.length < queries * 4) {
    throw new Error(`detector output too short: ${logits.length} logits, ${boxes.length} box values for ${queries}×${classes}`);
  }
  // Compare in logit space (monotonic) and only take sigmoids of the survivors: 300 × 80 = 24,000 pairs per frame.
  const minLogit = Math.log(options.threshold / (1 - options.threshold));
  const hits: Array<{ q: number; c: number; logit: number }> = [];
  for (let q = 0; q < queries; q++) {
    for (let c = 0; c < classes; c++) {
      const logit = logits[q * classes + c]!;
      if (logit >= minLogit && options.labels[c] !== undefined) hits.push({ q, c, logit });
    }
  }
  hits.sort((a, b) => b.logit - a.logit);
  return hits.slice(0, options.maxDetections).map(({ q, c, logit }) => ({
    label: options.labels[c]!,
    score: sigmoid(logit),
    box: fromCentre(boxes[q * 4]!, boxes[q * 4 + 1]!, boxes[q * 4 + 2]!, boxes[q * 4 + 3]!),
  }));
}

/** config.json id2label ({"0": "person", …}) → dense array indexed by class. */
export function labelsFromConfig(id2label: Record<string, string> | undefined, classes: number): Array<string | undefined> {
  const out: Array<string | undefined> = new Array(classes).fill(undefined);
  for (const [key, name] of Object.entries(id2label ?? {})) {
    const index = Number(key);
    if (Number.isInteger(index) && index >= 0 && index < classes) out[index] = name;
  }
  return out;
}
