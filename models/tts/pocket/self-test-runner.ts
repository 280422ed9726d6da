/**
 * Runs the WebGPU numeric self-test and decides the backend for a session. The candidate (WebGPU) and reference
 * (WASM) models synthesise the same fixed phrase with temperature 0 so their first frames are comparable.
 */
import {
  judgeSelfTest,
  selfTestCacheKey,
  type AdapterIdentity,
  type SelfTestVerdict,
  type VerdictCache,
} from '../../../core/tts/self-test';
import type { TtsBackend } from '../../../core/tts/backend-guard';
import { synthesize } from './generator';
import type { PocketModel } from './model';

export const SELF_TEST_PHRASE = 'Hello world.';
const SELF_TEST_FRAMES = 4;

async function firstFrames(model: PocketModel): Promise<Float32Array[]> {
  const voice = model.voices.values().next().value;
  if (!voice) throw new Error('self-test needs a preset voice');
  const frames: Float32Array[] = [];
  for await (const f of synthesize(model, SELF_TEST_PHRASE, voice, {
    temperature: 0,
    maxFramesPerChunk: SELF_TEST_FRAMES,
    guardFrames: false,
  }))
    frames.push(f.pcm);
  return frames;
}

export async function runSelfTest(candidate: PocketModel, reference: PocketModel | null): Promise<SelfTestVerdict> {
  let cand: Float32Array[];
  try {
    cand = await firstFrames(candidate);
  } catch (e) {
    return { pass: false, reason: 'no-audio', detail: `candidate backend failed: ${(e as Error).message}` };
  }
  const ref = reference ? await firstFrames(reference) : undefined;
  return judgeSelfTest(cand, ref);
}

export interface BackendDecision {
  backend: TtsBackend;
  source: 'no-webgpu' | 'cached' | 'tested';
  verdict?: SelfTestVerdict;
}

/**
 * WASM unless WebGPU exists and passed the self-test on this adapter/driver/bundle (cached). `test` is only called
 * on a cache miss; its verdict is stored either way so a failing device is not re-tested every session.
 */
export async function decideBackend(args: {
  adapter: AdapterIdentity | null;
  bundleId: string;
  cache: VerdictCache;
  test: () => Promise<SelfTestVerdict>;
  now?: () => number;
}): Promise<BackendDecision> {
  if (!args.adapter) return { backend: 'wasm', source: 'no-webgpu' };
  const key = selfTestCacheKey(args.adapter, args.bundleId);
  const cached = await args.cache.get(key);
  if (cached) return { backend: cached.pass ? 'webgpu' : 'wasm', source: 'cached' };
  const verdict = await args.test();
  await args.cache.set(
    key,
    verdict.pass
      ? { pass: true, at: (args.now ?? Date.now)() }
      : { pass: false, reason: verdict.reason, at: (args.now ?? Date.now)() },
  );
  return { backend: verdict.pass ? 'webgpu' : 'wasm', source: 'tested', verdict };
}

/** Why an 'auto' load stayed on WASM, as the voice status says it (docs/tts.md § The GPU voice). */
export function cpuReasonOf(decision: BackendDecision): string {
  if (decision.source === 'no-webgpu') return 'no WebGPU adapter for the voice';
  if (decision.source === 'cached') return 'the GPU failed the voice self-test earlier';
  return `the GPU failed the voice self-test (${decision.verdict?.pass === false ? decision.verdict.reason : 'unknown'})`;
}
