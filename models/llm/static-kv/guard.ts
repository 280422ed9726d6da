/**
 * The load-time check on the user's device (docs/llm-static-kv.md, "Fallback"): from one plain prefill, a few greedy
 * steps through the plain graph and through the static decoder must pick the same tokens with logits within
 * `llm.staticKvGuardMaxRelDiff` of each other; anything else keeps the product on the plain path with the reason.
 */
import { argmaxOf } from './argmax';
import { isState, lastLogits, type Feeds, type OrtClasses, type OrtSession, type StaticDecoder } from './static-decoder';

export interface GuardInput {
  ort: OrtClasses;
  /** The plain graph's session (transformers.js's own). */
  plain: OrtSession;
  decoder: StaticDecoder;
  /** The plain cache after prefilling `promptLength` tokens, and the greedy token that prefill gave. */
  cache: Readonly<Feeds>;
  promptLength: number;
  firstToken: number;
  steps: number;
  maxRelDiff: number;
}

export type GuardResult =
  | { ok: true; tokens: number[]; maxAbsDiff: number; relDiff: number }
  | { ok: false; reason: string; maxAbsDiff: number; relDiff: number; mismatch?: TokenMismatch };

/**
 * The first step whose greedy tokens differ, the static path's greedy token at every step (for a recompute), and
 * whether either side's logits there were degenerate: all equal or not finite, which no working language model gives.
 */
export interface TokenMismatch {
  step: number;
  plainToken: number;
  staticTokens: number[];
  plainDegenerate: boolean;
  staticDegenerate: boolean;
}

/** All values equal, or any not finite. */
export function degenerate(logits: Float32Array): boolean {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of logits) {
    if (!Number.isFinite(v)) return true;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return !(hi > lo);
}

/** Free-running greedy steps of the plain graph from `cache` (tensors it creates on the GPU are disposed). */
async function plainSteps(ort: OrtClasses, plain: OrtSession, cache: Readonly<Feeds>, first: number, pos: number, steps: number) {
  const logits: Float32Array[] = [];
  let state: Feeds = Object.fromEntries(Object.entries(cache).filter(([k]) => isState(k)));
  let token = first;
  for (let t = 0; t < steps; t++) {
    const p = pos + t;
    const feeds: Feeds = {
      ...state,
      input_ids: new ort.Tensor('int64', BigInt64Array.of(BigInt(token)), [1, 1]),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(p + 1).fill(1n), [1, p + 1]),
    };
    if (plain.inputNames.includes('position_ids'))
      feeds.position_ids = new ort.Tensor('int64', BigInt64Array.of(BigInt(p)), [1, 1]);
    if (plain.inputNames.includes('num_logits_to_keep'))
      feeds.num_logits_to_keep = new ort.Tensor('int64', BigInt64Array.of(1n), []);
    const out = await plain.run(feeds);
    const next: Feeds = {};
    for (const [name, v] of Object.entries(out)) {
      if (name === 'logits') continue;
      next[name.replace(/^present_conv\./, 'past_conv.').replace(/^present\./, 'past_key_values.')] = v;
    }
    // The step's own outputs from the previous step are no longer needed (the caller's cache is left alone).
    if (t > 0) for (const v of Object.values(state)) if (v.location === 'gpu-buffer') v.dispose();
    state = next;
    logits.push(lastLogits(out.logits!));
    token = argmaxOf(logits.at(-1)!);
  }
  for (const v of Object.values(state)) if (v.location === 'gpu-buffer') v.dispose();
  return logits;
}

export async function checkStaticDecoder(g: GuardInput): Promise<GuardResult> {
  const a = await plainSteps(g.ort, g.plain, g.cache, g.firstToken, g.promptLength, g.steps);
  await g.decoder.load(g.cache, g.promptLength);
  const b: Float32Array[] = [];
  let token = g.firstToken;
  for (let t = 0; t < g.steps; t++) {
    b.push(await g.decoder.step(token, g.promptLength + t));
    token = argmaxOf(b.at(-1)!);
  }
  let maxAbsDiff = 0;
  let scale = 0;
  const tokens: number[] = [];
  for (let t = 0; t < g.steps; t++) {
    const x = a[t]!;
    const y = b[t]!;
    if (x.length !== y.length)
      return { ok: false, reason: `logits of ${y.length} values, plain ${x.length}`, maxAbsDiff: Infinity, relDiff: Infinity };
    for (let i = 0; i < x.length; i++) {
      maxAbsDiff = Math.max(maxAbsDiff, Math.abs(x[i]! - y[i]!));
      scale = Math.max(scale, Math.abs(x[i]!));
    }
    const [ta, tb] = [argmaxOf(x), argmaxOf(y)];
    const [plainDegenerate, staticDegenerate] = [degenerate(x), degenerate(y)];
    if (ta !== tb || !Number.isFinite(maxAbsDiff) || plainDegenerate || staticDegenerate) {
      const relDiff = maxAbsDiff / Math.max(scale, 1e-6);
      const mismatch = { step: t, plainToken: ta, staticTokens: b.map(argmaxOf), plainDegenerate, staticDegenerate };
      return { ok: false, reason: `step ${t + 1}: token ${tb}, plain ${ta}`, maxAbsDiff, relDiff, mismatch };
    }
    tokens.push(ta);
  }
  const relDiff = maxAbsDiff / Math.max(scale, 1e-6);
  if (relDiff > g.maxRelDiff)
    return {
      ok: false,
      reason: `logits differ by ${relDiff.toExponential(1)} of their range (limit ${g.maxRelDiff})`,
      maxAbsDiff,
      relDiff,
    };
  return { ok: true, tokens, maxAbsDiff, relDiff };
}
