/**
 * Keeps the avatar's rendering to a share of the side panel's main thread. The audio and playback messages of a
 * reply are handled on that thread too; when a frame takes longer than the frame interval (a software GL renderer,
 * a weak integrated GPU), every message waits behind renders (docs/benchmarks.md, "What the user hears"). TalkingHead
 * throttles itself by `animFrameDur`; this stretches it so that render time ÷ frame interval stays at or under the
 * share. Frames are dropped, never audio: TalkingHead's clock advances by real time, so the lips stay on the voice.
 * On a GPU that renders a frame in a few ms the frame rate is unchanged.
 */

export interface GovernedHead {
  animate: (t: number) => void;
  animClock: number;
  animFrameDur: number;
}

/** Weight of the newest render time in the running average (a single slow frame moves it a quarter). */
const SMOOTHING = 0.25;

/** The frame interval for a running average render time, the configured frame rate and the allowed share. */
export function frameIntervalMs(renderMs: number, fps: number, maxShare: number): number {
  const base = 1000 / fps;
  if (!(maxShare > 0) || maxShare >= 1) return base;
  return Math.max(base, renderMs / maxShare);
}

/**
 * Wraps `head.animate` to time the frames it renders and adjust `animFrameDur`. Returns the running average render
 * time (ms) for measurement. `maxShare` is read every frame so a tunable change applies at once.
 */
export function governRenderShare(
  head: GovernedHead,
  fps: number,
  maxShare: () => number,
  now: () => number = () => performance.now(),
): { renderMs: () => number } {
  const original = head.animate;
  let average = 0;
  head.animate = (t: number) => {
    const clock = head.animClock;
    const t0 = now();
    original(t);
    if (head.animClock === clock) return; // throttled: nothing was rendered
    const took = now() - t0;
    average = average === 0 ? took : average + SMOOTHING * (took - average);
    head.animFrameDur = frameIntervalMs(average, fps, maxShare());
  };
  return { renderMs: () => average };
}
