/**
 * The graph-capture bench (capture-bench.ts) on graphs the product's own rewrite made: an LFM2 graph in one exporter's
 * node structure (lfm2-exporter-graphs.ts) rewritten by models/llm/static-kv into its static-KV twin, plus the
 * equality the product relies on: after the same plain prefill, N greedy steps through the plain graph (growing cache)
 * and through the rewritten one (capacity buffer) give the same tokens, logits compared step by step
 * (docs/llm-static-kv.md). Host tensors for that check; the capture runs are capture-bench's.
 */
import { rewriteForStaticKv } from '../../models/llm/static-kv/rewrite';
import { createSession, timed, type BenchContext } from './bench-util';
import { buildLfm2ExporterGraph, type Lfm2ExporterStyle } from './lfm2-exporter-graphs';
import { llmAct, type LlmDtype, type LlmGraph, type LlmShape } from './llm-graph';
import { round, stats } from './measure';
import { decodePlain, decodeStatic, maxAbsDiff } from './static-kv-decode';

export interface ExporterCheckPlan {
  style: Lfm2ExporterStyle;
  /** Prompt tokens prefilled by the plain graph before the comparison. */
  promptTokens: number;
  /** Greedy steps compared (the issue asks for 64). */
  steps: number;
}

/** The plain exporter-style graph and its rewrite (same external weights file). */
export function buildRewrittenGraph(
  shape: LlmShape,
  dtype: LlmDtype,
  style: Lfm2ExporterStyle,
  capacity: number,
): { plain: LlmGraph; rewritten: LlmGraph; buildMs: number; rewriteMs: number; removedNodes: number } {
  const built = timed(() => buildLfm2ExporterGraph(shape, style, dtype, { external: 'model.onnx_data' }));
  const rw = timed(() => rewriteForStaticKv(built.value.onnx, capacity));
  if (!rw.value.ok) throw new Error(`static-KV rewrite refused the ${style} graph: ${rw.value.reason}`);
  const plain = built.value;
  const rewritten: LlmGraph = { ...plain, onnx: rw.value.onnx, nodes: plain.nodes - rw.value.removedNodes };
  return { plain, rewritten, buildMs: built.ms, rewriteMs: rw.ms, removedNodes: rw.value.removedNodes };
}

/** Plain graph vs rewritten graph, greedy, after the same prefill, on the job's EP (no capture). */
export async function plainVsRewritten(
  ctx: BenchContext,
  shape: LlmShape,
  dtype: LlmDtype,
  graphs: { plain: LlmGraph; rewritten: LlmGraph },
  capacity: number,
  check: ExporterCheckPlan,
): Promise<Record<string, unknown>> {
  if (check.promptTokens + check.steps + 1 > capacity) throw new Error('prompt + steps exceed the KV capacity');
  const prompt = Array.from({ length: check.promptTokens }, (_, i) => (i * 7919 + 13) % shape.vocab);
  const dims = { ...shape, act: llmAct(dtype) };
  const plain = await createSession(ctx, graphs.plain, 0, `lfm2-${check.style}-${dtype}-plain`);
  const rewritten = await createSession(ctx, graphs.rewritten, 0, `lfm2-${check.style}-${dtype}-static`);
  const plainMs: number[] = [];
  const staticMs: number[] = [];
  const a = await decodePlain(ctx.ort, plain.session, dims, prompt, check.steps, plainMs);
  const b = await decodeStatic(ctx.ort, plain.session, rewritten.session, dims, prompt, check.steps, capacity, staticMs);
  await plain.session.release();
  await rewritten.session.release();
  const firstDifferentToken = a.tokens.findIndex((t, i) => t !== b.tokens[i]);
  return {
    style: check.style,
    steps: check.steps,
    promptTokens: check.promptTokens,
    tokensEqual: firstDifferentToken === -1,
    firstDifferentToken: firstDifferentToken === -1 ? null : firstDifferentToken,
    maxAbsLogitDiff: maxAbsDiff(a.logits, b.logits),
    distinctTokens: new Set(a.tokens).size,
    plainMsPerToken: stats(plainMs),
    staticHostIoMsPerToken: stats(staticMs),
    note: 'host tensors for both (states read back every step): an equality check, not the capture timing',
    plainSessionMs: round(plain.info.sessionMs, 1),
  };
}
