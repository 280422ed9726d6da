/**
 * Keeps the avatar's rendering to a share of the side panel's main thread. The audio and playback messages of a
 * reply are handled on that thread too; when frames cost more than the frame interval (a software GL renderer, a
 * weak integrated GPU), every message waits behind them (docs/benchmarks.md, "What the user hears"). TalkingHead
 * throttles itself by `animFrameDur`; this stretches it so that the cost of a frame ÷ the frame interval stays at or
 * under the share. Frames are dropped, never audio: TalkingHead's clock advances by real time, so the lips stay on
 * the voice. On a GPU that draws a frame in a few ms the frame rate is unchanged.
 *
 * A frame's cost is more than `animate()`: with WebGL the browser's rendering update after it (compositing, waiting
 * for the GPU process) blocks the thread too. So the cost is the larger of the time inside `animate()` and the
 * long-task time (PerformanceObserver 'longtask', ≥ 50 ms tasks) the page saw since the previous drawn frame.
 */

export interface GovernedHead {
  animate: (t: number) => void;
  animClock: number;
  animFrameDur: number;
}

/** Weight of the newest frame cost in the running average (a single slow frame moves it a quarter). */
const SMOOTHING = 0.25;
/** The governor never draws fewer frames than this per second: the face must still move with the voice. */
const MIN_FPS = 5;

/** The frame interval for a running average frame cost, the configured frame rate and the allowed share. */
export function frameIntervalMs(costMs: number, fps: number, maxShare: number): number {
  const base = 1000 / fps;
  if (!(maxShare > 0) || maxShare >= 1) return base;
  // The governor never takes the rate below MIN_FPS; a state that asks for fewer frames (idle) still gets them.
  return Math.min(Math.max(base, 1000 / MIN_FPS), Math.max(base, costMs / maxShare));
}

/**
 * Wraps `head.animate` to measure what each drawn frame costs and adjust `animFrameDur`. `blockedMs()` is a running
 * total of long-task time on this thread (0 where the page cannot observe long tasks). `fps` (the rate the avatar's
 * state asks for) and `maxShare` are read every frame, so a state or tunable change applies at once. `everyTick`
 * runs on every animation frame, also those the avatar skips. Returns the running average cost (ms) for measurement.
 */
export function governRenderShare(
  head: GovernedHead,
  fps: () => number,
  maxShare: () => number,
  now: () => number = () => performance.now(),
  blockedMs: () => number = () => 0,
  everyTick: () => void = () => undefined,
): { costMs: () => number } {
  const original = head.animate;
  let average = 0;
  let blockedAtLastFrame = blockedMs();
  head.animate = (t: number) => {
    // Every animation frame of the page, drawn or not: work that must not slow down with the avatar (the playback
    // level the echo path learns from).
    everyTick();
    const clock = head.animClock;
    const t0 = now();
    original(t);
    if (head.animClock === clock) return; // throttled: nothing was drawn
    const blocked = blockedMs();
    const cost = Math.max(now() - t0, blocked - blockedAtLastFrame);
    blockedAtLastFrame = blocked;
    average = average === 0 ? cost : average + SMOOTHING * (cost - average);
    head.animFrameDur = frameIntervalMs(average, fps(), maxShare());
  };
  return { costMs: () => average };
}

/** Running total of this page's long-task time (ms), for `governRenderShare`; 0 where long tasks are not observable. */
export function longTaskClock(): { blockedMs: () => number; stop: () => void } {
  let total = 0;
  if (typeof PerformanceObserver === 'undefined' || !PerformanceObserver.supportedEntryTypes?.includes('longtask')) {
    return { blockedMs: () => 0, stop: () => undefined };
  }
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) total += e.duration;
  });
  observer.observe({ type: 'longtask' });
  return { blockedMs: () => total, stop: () => observer.disconnect() };
}
