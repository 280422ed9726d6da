/**
 * Numeric health of a PCM frame. WebGPU kernels fail in three ways (pocket-tts.md §6): NaN/Inf, fp16 overflow that
 * stays finite, and garbage that is finite and in range but noise-like. Peak, RMS and the share of energy in
 * sample-to-sample differences catch all three cheaply.
 */

export interface FrameStats {
  finite: boolean;
  peak: number;
  rms: number;
  /** Σ(xₙ − xₙ₋₁)² / (2 Σ xₙ²): ≈ 0 for a low tone, ≈ 1 for white noise, 2 at Nyquist. 0 for silence. */
  highFreqShare: number;
}

export function frameStats(pcm: Float32Array): FrameStats {
  let finite = true;
  let peak = 0;
  let energy = 0;
  let diffEnergy = 0;
  let prev = 0;
  for (let i = 0; i < pcm.length; i++) {
    const x = pcm[i]!;
    if (!Number.isFinite(x)) {
      finite = false;
      continue;
    }
    const a = Math.abs(x);
    if (a > peak) peak = a;
    energy += x * x;
    if (i > 0) diffEnergy += (x - prev) * (x - prev);
    prev = x;
  }
  return {
    finite,
    peak,
    rms: pcm.length ? Math.sqrt(energy / pcm.length) : 0,
    highFreqShare: energy > 0 ? diffEnergy / (2 * energy) : 0,
  };
}

/** The per-frame guard used while speaking: any NaN/Inf or an overflow-sized sample makes a frame unusable. */
export function isFrameHealthy(pcm: Float32Array, maxPeak: number): boolean {
  for (let i = 0; i < pcm.length; i++) {
    const x = pcm[i]!;
    if (!Number.isFinite(x) || Math.abs(x) > maxPeak) return false;
  }
  return true;
}
