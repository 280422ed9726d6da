/**
 * The frame rate the avatar asks for (the render governor may draw fewer: render-governor.ts). Lower with reduced
 * motion; on a software renderer, where a frame costs the CPU the speech models need (docs/avatar.md, "On a software
 * renderer"); and while the microphone feed on the shared thread runs behind real time (docs/avatar.md, "When the
 * microphone falls behind").
 */
import type { EngineState } from '../../core/engine/types';
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

/** The rate each state asks for on a GPU: full while speaking (the lips), a gentle idle otherwise. */
const STATE_FPS: Record<EngineState, number> = { idle: 10, listening: 20, thinking: 15, speaking: 30 };

/** The state the avatar draws for and whether the feed is behind: the rate asked of it now. */
export class AvatarFrameRate {
  private drawnState: EngineState = 'idle';
  private behind = false;

  constructor(private readonly conditions: Omit<FrameRateConditions, 'feedBehind'>) {}

  get state(): EngineState {
    return this.drawnState;
  }

  setState(state: EngineState): void {
    this.drawnState = state;
  }

  /** True when this changed what the rate is based on. */
  setFeedBehind(behind: boolean): boolean {
    if (this.behind === behind) return false;
    this.behind = behind;
    return true;
  }

  /** Read on every drawn frame, so a tunable change applies at once; 1 fps while the panel is hidden. */
  current(): number {
    const hidden = typeof document !== 'undefined' && document.visibilityState === 'hidden';
    return hidden ? 1 : this.of(this.drawnState, this.behind);
  }

  /** The rate `state` asks for in this panel's conditions. */
  of(state: EngineState, feedBehind = false): number {
    return avatarFps(STATE_FPS[state], { ...this.conditions, feedBehind });
  }
}
