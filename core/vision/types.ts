/**
 * Shapes shared by the vision code. Boxes are normalised to [0, 1] of the frame the detector saw, so they survive any
 * downscaling between camera, detector and preview. Nothing here ever holds pixels: only labels, scores and boxes
 * leave the detector, and none of it is stored or sent anywhere.
 */

/** Corners, normalised: x0 < x1 and y0 < y1, all in [0, 1]; y grows downwards. */
export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** One detection in one frame. `label` is the model's class name ('person', 'cup', 'cell phone', …). */
export interface Detection {
  label: string;
  score: number;
  box: Box;
}

/** What the detector saw in one frame. */
export interface FrameDetections {
  /** When the frame was grabbed (injected clock, ms). */
  capturedAt: number;
  detections: Detection[];
}

/** One kind of object in the smoothed scene. */
export interface SceneObject {
  label: string;
  /** Smoothed (EMA) score. */
  score: number;
  /** Stabilised count (median over recent frames), at least 1 while the label is present. */
  count: number;
  /** The boxes of this label in the latest frame that had it (merged, best first). */
  boxes: Box[];
}

/** The smoothed scene the answers are built from. */
export interface SceneSnapshot {
  /** Present labels, best score first. People are included under 'person'. */
  objects: SceneObject[];
  /** Stabilised person count (0 when nobody is present). */
  personCount: number;
  /** capturedAt of the newest frame folded in; null before the first frame. */
  updatedAt: number | null;
  /** Frames folded in since the last reset. */
  frames: number;
}
