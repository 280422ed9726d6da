/**
 * The LLM stage bench (split from stage-bench.ts, which re-exports it): time to first token with and without a cached
 * prefix, and decode tokens/s, over the synthetic LFM2-shaped graph. Every run's outputs are checked; a non-finite or
 * all-zero output marks the result invalid.
 */
import {
  createSession,
  disposeAll,
  floatTensor,
  i64,
  noise,
  timed,
  type BenchContext,
  type Feeds,
  type StageResult,
  type Tensor,
} from './bench-util';
import { buildLlmGraph, llmAct, llmStateSpecs, presentName, type LlmDtype, type LlmShape } from './llm-graph';
import { argmax, checkTensor, isValid, now, round, stats } from './measure';

// ---------------------------------------------------------------------------------------------------------------
// LLM: time to first token (TTFT) for prompts with and without a cached prefix; decode tokens/s.

export interface LlmPlan {
  shape: LlmShape;
  dtype: LlmDtype;
  prompts: number[];
  /** New tokens of a turn when the rest of the prompt is a cached prefix. */
  newTokens: number;
  decodeContexts: number[];
  decodeTokens: number;
  reps: number;
  /** Also time decode with every output read back to the CPU and re-uploaded (GPU-resident KV off). */
  cpuKvCompare: boolean;
  accuracyLevel?: number;
}

export async function benchLlm(ctx: BenchContext, plan: LlmPlan): Promise<StageResult> {
  const { ort } = ctx;
  const act = llmAct(plan.dtype);
  const out: StageResult = {
    stage: 'llm',
    ep: ctx.ep,
    dtype: plan.dtype,
    threads: ctx.threads,
    valid: true,
    graphs: [],
    metrics: {},
    validity: [],
  };
  const built = timed(() =>
    buildLlmGraph(plan.shape, plan.dtype, { external: 'model.onnx_data', accuracyLevel: plan.accuracyLevel }),
  );
  const graph = built.value;
  const states = llmStateSpecs(plan.shape);
  const gpuOut = ctx.ep === 'webgpu';
  // transformers.js keeps present.* on the GPU and feeds them back (preferredOutputLocation 'gpu-buffer').
  const preferred = gpuOut ? Object.fromEntries(states.map((s) => [presentName(s.name), 'gpu-buffer'])) : undefined;
  const { session, info } = await createSession(
    ctx,
    graph,
    built.ms,
    `lfm2-${plan.dtype}`,
    preferred ? { preferredOutputLocation: preferred } : {},
  );
  graph.onnx = new Uint8Array(0);
  delete graph.external;
  out.graphs.push(info);
  out.metrics.decodeWeightBytes = graph.decodeWeightBytes;
  const kvBytesPerToken =
    plan.shape.layerTypes.filter((t) => t === 'full_attention').length *
    2 *
    plan.shape.kvHeads *
    plan.shape.headDim *
    (act === 'float16' ? 2 : 4);
  out.metrics.kvBytesPerToken = kvBytesPerToken;
  const rnd = noise(7);
  const ids = (n: number) => Array.from({ length: n }, () => Math.floor(((rnd(0) + 1) / 2) * (plan.shape.vocab - 1)));

  const emptyPast = (): Feeds => {
    const f: Feeds = {};
    for (const s of states) f[s.name] = floatTensor(ort, act, s.dims, () => 0);
    return f;
  };
  const feedsFor = (tokens: number[], past: Feeds, pastLen: number): Feeds => ({
    input_ids: i64(ort, tokens, [1, tokens.length]),
    attention_mask: i64(ort, new Array(pastLen + tokens.length).fill(1), [1, pastLen + tokens.length]),
    position_ids: i64(
      ort,
      tokens.map((_, i) => pastLen + i),
      [1, tokens.length],
    ),
    num_logits_to_keep: i64(ort, [1], []),
    ...past,
  });
  const pastFrom = (o: Record<string, Tensor>): Feeds => Object.fromEntries(states.map((s) => [s.name, o[presentName(s.name)]!]));
  const check = (label: string, o: Record<string, Tensor>) => {
    const v = checkTensor(label, o.logits as unknown as { type: string; data: unknown });
    out.validity.push(v);
    return argmax(o.logits as unknown as { type: string; data: unknown });
  };
  /** One prefill; returns its time (run + logits read-back + argmax) and outputs. */
  const prefill = async (tokens: number[], past: Feeds, pastLen: number) => {
    const feeds = feedsFor(tokens, past, pastLen);
    const t0 = now();
    const o = (await session.run(feeds)) as Record<string, Tensor>;
    argmax(o.logits as unknown as { type: string; data: unknown });
    return { ms: now() - t0, o };
  };

  const ttftCold: Record<string, unknown> = {};
  const ttftCached: Record<string, unknown> = {};
  const decode: Record<string, unknown> = {};
  for (const n of plan.prompts) {
    ctx.log(`  prompt ${n}`);
    // Without a cached prefix: the whole prompt.
    const prompt = ids(n);
    const first = await prefill(prompt, emptyPast(), 0);
    check(`prefill${n}.logits`, first.o);
    disposeAll(Object.values(first.o));
    const times: number[] = [];
    for (let r = 0; r < plan.reps; r++) {
      const p = await prefill(prompt, emptyPast(), 0);
      times.push(p.ms);
      disposeAll(Object.values(p.o));
    }
    ttftCold[n] = { firstEncounterMs: round(first.ms, 2), ...stats(times) };

    // With a cached prefix: prefill n − newTokens once (kept on the GPU), then time the new turn only.
    const prefixLen = n - plan.newTokens;
    const pre = await prefill(prompt.slice(0, prefixLen), emptyPast(), 0);
    const past = pastFrom(pre.o);
    const turn = prompt.slice(prefixLen);
    const c0 = await prefill(turn, past, prefixLen);
    check(`cached${n}.logits`, c0.o);
    disposeAll(Object.values(c0.o));
    const ctimes: number[] = [];
    for (let r = 0; r < plan.reps; r++) {
      const p = await prefill(turn, past, prefixLen);
      ctimes.push(p.ms);
      disposeAll(Object.values(p.o));
    }
    ttftCached[n] = { prefixTokens: prefixLen, newTokens: turn.length, firstEncounterMs: round(c0.ms, 2), ...stats(ctimes) };

    // Decode at this context: continue from the full prompt's cache, feeding present.* back each step.
    if (plan.decodeContexts.includes(n)) {
      const full = await prefill(turn, past, prefixLen);
      let cache = pastFrom(full.o);
      let len = n;
      let token = argmax(full.o.logits as unknown as { type: string; data: unknown });
      const step: number[] = [];
      for (let t = 0; t < plan.decodeTokens + 2; t++) {
        const feeds = feedsFor([token], cache, len);
        const t0 = now();
        const o = (await session.run(feeds)) as Record<string, Tensor>;
        token = argmax(o.logits as unknown as { type: string; data: unknown });
        const dt = now() - t0;
        if (t >= 2) step.push(dt);
        if (t === plan.decodeTokens + 1) check(`decode${n}.logits`, o);
        disposeAll(Object.values(cache));
        cache = pastFrom(o);
        len += 1;
      }
      disposeAll(Object.values(cache));
      const s = stats(step);
      const boundMs = ((graph.decodeWeightBytes + kvBytesPerToken * n) / 4.8e12) * 1000;
      decode[n] = {
        msPerToken: s,
        tokensPerSecond: round(1000 / s.median, 1),
        bandwidthBoundMsH200: round(boundMs, 4),
        overheadMs: round(s.median - boundMs, 3),
      };
    }
    disposeAll(Object.values(past));
  }
  out.metrics.ttftNoCache = ttftCold;
  out.metrics.ttftCachedPrefix = ttftCached;
  out.metrics.decode = decode;

  if (plan.cpuKvCompare && gpuOut && plan.decodeContexts.length > 0) {
    // Same decode with every present.* read back to the CPU and uploaded again next step.
    const { session: s2 } = await createSession(
      ctx,
      buildLlmGraph(plan.shape, plan.dtype, { external: 'model.onnx_data', accuracyLevel: plan.accuracyLevel }),
      0,
      `lfm2-${plan.dtype}-cpu-kv`,
    );
    const n = plan.decodeContexts[0]!;
    const p = (await s2.run(feedsFor(ids(n), emptyPast(), 0))) as Record<string, Tensor>;
    let cache = pastFrom(p);
    let len = n;
    const step: number[] = [];
    for (let t = 0; t < Math.min(plan.decodeTokens, 16) + 2; t++) {
      const t0 = now();
      const o = (await s2.run(feedsFor([5], cache, len))) as Record<string, Tensor>;
      argmax(o.logits as unknown as { type: string; data: unknown });
      if (t >= 2) step.push(now() - t0);
      cache = pastFrom(o);
      len += 1;
    }
    out.metrics.decodeCpuKv = { context: n, msPerToken: stats(step) };
    await s2.release();
  }
  await session.release();
  out.valid = out.validity.every(isValid);
  return out;
}
