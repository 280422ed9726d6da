/**
 * The frame rate the avatar asks for (the render governor may draw fewer: render-governor.ts). Lower with reduced
 * motion; on a software renderer, where a frame costs the CPU the speech models need (docs/avatar.md, "On a software
 * renderer"); and while the microphone feed on the shared thread runs behind real time (docs/avatar.md, "When the
 * microphone falls behind").
 */
import { lipsyncTunables as T } from '../../core/tunables';

export interface FrameRateConditions {
  reducedMotion: boolean;
  softwareRenderer: boolean;
  feedBehind: boolean;
}

export function avatarFps(stateFps: number, c: FrameRateConditions): number {
  const scale =
    (c.reducedMotion ? 0.7 : 1) * (c.softwareRenderer ? T.softwareFpsScale : 1) * (c.feedBehind ? T.feedBehindFpsScale : 1);
  return Math.max(1, stateFps * scale);
}
