import { registerTunables } from './registry';

// vision: webcam object detection (core/vision, models/vision). Times in ms, scores are sigmoid probabilities, boxes
// are normalised to [0, 1] of the frame. Defaults and their sources: docs/vision.md.
export const visionTunables = registerTunables(
  'vision',
  {
    /** A query/class pair whose sigmoid score is below this is not a detection at all. */
    scoreThreshold: 0.45,
    /** Most detections kept per frame (top scores first). */
    maxDetections: 40,
    /** Frame interval while nobody is established in view: look often so a person is found quickly. */
    searchIntervalMs: 700,
    /** Frame interval once a person is established: the scene changes slowly; spare the GPU. */
    establishedIntervalMs: 2200,
    /** Retry delay after a frame was skipped for speech or dropped as stale. */
    retryAfterSkipMs: 250,
    /** Vision waits this long after the last speech stage ended: a follow-up question often comes right away. */
    resumeAfterSpeechMs: 600,
    /** A grabbed frame older than this when the detector could start is dropped (it no longer shows "now"). */
    maxFrameAgeMs: 800,
    /** Weight of the newest frame in the per-label score EMA (frames missing a label count as score 0). */
    emaAlpha: 0.5,
    /** Hysteresis: a label appears once its EMA reaches `presentOn` and disappears only below `presentOff`. */
    presentOn: 0.5,
    presentOff: 0.25,
    /** Per-frame counts are stabilised as the median over this many recent frames. */
    countWindow: 3,
    /** A box must score at least this to be counted (person count, object count). */
    countMinScore: 0.6,
    /** Same-label boxes whose intersection over the smaller box exceeds this are one object. */
    mergeIoMin: 0.7,
    /** Most object kinds named in one spoken answer. */
    maxSpokenObjects: 4,
    /** With no frame for this long the scene is unknown (camera stalled, or vision paused by a long reply). */
    staleSceneMs: 10000,
    /** Preview frames sent to the side panel: longer side in pixels and JPEG quality. */
    previewMaxSide: 320,
    previewJpegQuality: 0.7,
    /** Frames handed to the detector are downscaled so the longer side is at most this (the model resizes to 640). */
    detectMaxSide: 640,
  },
  {
    scoreThreshold: { min: 0.01, max: 0.99 },
    maxDetections: { min: 1, max: 300, integer: true },
    searchIntervalMs: { min: 100, max: 60000 },
    establishedIntervalMs: { min: 100, max: 60000 },
    retryAfterSkipMs: { min: 50, max: 10000 },
    resumeAfterSpeechMs: { min: 0, max: 10000 },
    maxFrameAgeMs: { min: 50, max: 10000 },
    emaAlpha: { min: 0.05, max: 1 },
    presentOn: { min: 0.05, max: 0.99 },
    presentOff: { min: 0.01, max: 0.99 },
    countWindow: { min: 1, max: 15, integer: true },
    countMinScore: { min: 0.01, max: 0.99 },
    mergeIoMin: { min: 0.1, max: 1 },
    maxSpokenObjects: { min: 1, max: 10, integer: true },
    staleSceneMs: { min: 1000, max: 600000 },
    previewMaxSide: { min: 64, max: 1280, integer: true },
    previewJpegQuality: { min: 0.1, max: 1 },
    detectMaxSide: { min: 64, max: 1920, integer: true },
  },
);
