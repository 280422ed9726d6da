/**
 * WebGPU self-test verdicts (pocket-tts.md §6 rules 3–4). The candidate backend synthesises a fixed phrase with
 * temperature 0; its frames must be finite, audible, in range and speech-like, and — because the sampler is chaotic
 * over a whole utterance — its FIRST frame must match the WASM reference within `selfTestMinSnrDb`.
 * Verdicts are cached per (adapter vendor, architecture, driver description, bundle) so the test runs once.
 */
import { z } from 'zod';
import { ttsTunables } from '../tunables';
import { frameStats, type FrameStats } from './audio-health';

export type SelfTestFailure = 'no-audio' | 'non-finite' | 'silent' | 'overflow' | 'noisy' | 'mismatch';

export type SelfTestVerdict =
  { pass: true; stats: FrameStats; snrDb: number | null } | { pass: false; reason: SelfTestFailure; detail: string };

function concat(frames: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(frames.reduce((a, f) => a + f.length, 0));
  let o = 0;
  for (const f of frames) {
    out.set(f, o);
    o += f.length;
  }
  return out;
}

/** SNR of `candidate` against `reference` in dB (∞ when identical). */
export function snrDb(reference: Float32Array, candidate: Float32Array): number {
  const n = Math.min(reference.length, candidate.length);
  let sig = 0;
  let err = 0;
  for (let i = 0; i < n; i++) {
    sig += reference[i]! * reference[i]!;
    const d = reference[i]! - candidate[i]!;
    err += d * d;
  }
  if (err === 0) return Infinity;
  return 10 * Math.log10(sig / err);
}

export function judgeSelfTest(
  candidate: readonly Float32Array[],
  reference?: readonly Float32Array[],
  t: typeof ttsTunables = ttsTunables,
): SelfTestVerdict {
  if (candidate.length === 0 || candidate.every((f) => f.length === 0)) {
    return { pass: false, reason: 'no-audio', detail: 'the backend produced no frames' };
  }
  const stats = frameStats(concat(candidate));
  if (!stats.finite) return { pass: false, reason: 'non-finite', detail: 'NaN or Inf samples' };
  if (stats.peak > t.selfTestMaxPeak) return { pass: false, reason: 'overflow', detail: `peak ${stats.peak.toFixed(3)}` };
  if (stats.rms < t.selfTestMinRms) return { pass: false, reason: 'silent', detail: `rms ${stats.rms.toExponential(2)}` };
  if (stats.highFreqShare > t.selfTestMaxHighFreqShare) {
    return { pass: false, reason: 'noisy', detail: `high-frequency share ${stats.highFreqShare.toFixed(3)}` };
  }
  let snr: number | null = null;
  if (reference && reference.length > 0) {
    snr = snrDb(reference[0]!, candidate[0]!);
    if (!(snr >= t.selfTestMinSnrDb)) {
      return { pass: false, reason: 'mismatch', detail: `first-frame SNR ${snr.toFixed(1)} dB vs WASM` };
    }
  }
  return { pass: true, stats, snrDb: snr };
}

export interface AdapterIdentity {
  vendor: string;
  architecture: string;
  description: string;
}

/** Cache key: a driver update or another bundle (other graphs) must re-run the test. */
export function selfTestCacheKey(adapter: AdapterIdentity, bundleId: string): string {
  return JSON.stringify(['pocket-selftest/v1', adapter.vendor, adapter.architecture, adapter.description, bundleId]);
}

/**
 * A self-test (or mid-session) verdict for one adapter and bundle: the one definition, used by the worker protocol,
 * the offscreen clients and the background's store (`core/protocol/messages.ts`).
 */
export const cachedVerdictSchema = z
  .object({ pass: z.boolean(), reason: z.string().max(200).optional(), at: z.number() })
  .strict();
export type CachedVerdict = z.infer<typeof cachedVerdictSchema>;

/** Persisted by the background (chrome.storage); an in-memory one serves tests and a first session. */
export interface VerdictCache {
  get(key: string): Promise<CachedVerdict | undefined>;
  set(key: string, verdict: CachedVerdict): Promise<void>;
}

export class MemoryVerdictCache implements VerdictCache {
  private readonly map = new Map<string, CachedVerdict>();
  async get(key: string) {
    return this.map.get(key);
  }
  async set(key: string, verdict: CachedVerdict) {
    this.map.set(key, verdict);
  }
}
