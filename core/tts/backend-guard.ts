/**
 * Mid-session fallback: WebGPU output is watched frame by frame; the first NaN/Inf/overflow frame moves the
 * session to WASM for good (and the caller records a failed verdict so the next session starts on WASM). A bad
 * frame on WASM has nowhere to fall back to and is reported as fatal.
 */
import { isFrameHealthy } from './audio-health';

export type TtsBackend = 'wasm' | 'webgpu';

export type GuardDecision =
  { action: 'play' } | { action: 'switch'; to: 'wasm'; reason: string } | { action: 'fail'; reason: string };

export class BackendGuard {
  private current: TtsBackend;
  private switchedAt: number | null = null;

  constructor(
    initial: TtsBackend,
    private readonly maxPeak: () => number,
  ) {
    this.current = initial;
  }

  get backend(): TtsBackend {
    return this.current;
  }

  /** Frame index at which the session left WebGPU, or null. */
  get switchedAtFrame(): number | null {
    return this.switchedAt;
  }

  inspect(pcm: Float32Array, frameIndex: number): GuardDecision {
    if (isFrameHealthy(pcm, this.maxPeak())) return { action: 'play' };
    const reason = `frame ${frameIndex} is not finite or exceeds the peak limit on ${this.current}`;
    if (this.current === 'webgpu') {
      this.current = 'wasm';
      this.switchedAt = frameIndex;
      return { action: 'switch', to: 'wasm', reason };
    }
    return { action: 'fail', reason };
  }
}
