/**
 * Opening the static-KV decode path for a loaded LLM (docs/llm-static-kv.md, "The product wiring"): the pinned graph
 * is read and rewritten, a second session over the rewrite is created (with graph capture on WebGPU), and the
 * load-time check compares it with the plain graph from one prefill. Returns the decoder or the plain path's reason.
 */
import { DynamicCache, type PreTrainedModel } from '@huggingface/transformers';
import { llmTunables } from '../../core/tunables';
import { dtypeSuffix } from '../registry';
import { pinnedBytes } from '../pinned-hub';
import { openStaticDecoder, type DecodeStatus, type StaticKvMode } from './decode-path';
import { checkStaticDecoder } from './static-kv/guard';
import type { OrtClasses, OrtSession, StaticDecoder } from './static-kv/static-decoder';
import type { GpuDeviceLike } from '../gpu/webgpu-types';
import { cacheFeeds, prefillIds } from './static-generate';

export interface StaticPathInput {
  mode: StaticKvMode;
  device: 'webgpu' | 'wasm' | 'cpu';
  ort: OrtClasses | null;
  model: PreTrainedModel;
  repo: string;
  revision: string;
  dtype: string;
  externalData: boolean;
  /** Token ids of a short rendered prompt for the load-time check. */
  checkPrompt: number[];
}

export interface StaticPath {
  decoder: StaticDecoder | null;
  status: DecodeStatus;
  /** The load-time check's numbers (absent when it did not run). */
  check?: { maxAbsDiff: number; relDiff: number };
}

const plain = (reason: string, check?: StaticPath['check']): StaticPath => ({
  decoder: null,
  status: { decode: 'plain', plainReason: reason },
  ...(check ? { check } : {}),
});

export async function openStaticPath(i: StaticPathInput): Promise<StaticPath> {
  const mode = llmTunables.staticKvDecode ? i.mode : 'plain';
  if (mode !== 'plain' && !i.ort) return plain('no onnxruntime handle for a second session');
  const ort = i.ort!;
  const onnxName = `model${dtypeSuffix(i.dtype)}.onnx`;
  const config = i.model.config as unknown as { vocab_size: number };
  const opened = await openStaticDecoder({
    mode,
    device: i.device,
    ort,
    graph: () => pinnedBytes(i.repo, i.revision, `onnx/${onnxName}`),
    externalData: async () =>
      i.externalData ? [{ path: `${onnxName}_data`, data: await pinnedBytes(i.repo, i.revision, `onnx/${onnxName}_data`) }] : [],
    capacity: llmTunables.contextTokenBudget,
    vocab: config.vocab_size,
    gpuDevice: async () => {
      const env = (ort as unknown as { env?: { webgpu?: { device?: unknown } } }).env;
      return ((await env?.webgpu?.device) as GpuDeviceLike | undefined) ?? null;
    },
  });
  if (!opened.decoder) return plain(opened.reason);
  const decoder = opened.decoder;
  try {
    const { first, ...check } = await checkOnPrompt(i.model, ort, decoder, i.checkPrompt);
    if (check.ok) return { decoder, status: { decode: decoder.mode }, check };
    let reason = check.reason;
    const m = check.mismatch;
    if (m?.plainDegenerate && !m.staticDegenerate) {
      // Logits all equal or not finite: no model computes that, so the plain session is what fails on this device.
      const plainFault = `its logits were all equal or not finite at load-time check step ${m.step + 1}`;
      return { decoder, status: { decode: decoder.mode, plainFault }, check };
    }
    if (m && !m.staticDegenerate) {
      // Which of the two is wrong: a full recompute of each step (prefill only, no cache carried between steps).
      const wrongAt = await firstRecomputeMismatch(i.model, [...i.checkPrompt, first], m.staticTokens);
      if (wrongAt === null) {
        const plainFault = `load-time check step ${m.step + 1}: plain token ${m.plainToken}, recomputed ${m.staticTokens[m.step]}`;
        return { decoder, status: { decode: decoder.mode, plainFault }, check };
      }
      reason += `; a full recompute disagreed with the static path at step ${wrongAt + 1}`;
    }
    if (m?.staticDegenerate) reason += '; the static logits were all equal or not finite';
    await decoder.release();
    return plain(`the load-time check differed (${reason})`, check);
  } catch (e) {
    await decoder.release().catch(() => undefined);
    return plain(`the load-time check failed: ${(e instanceof Error ? e.message : String(e)).slice(0, 160)}`);
  }
}

/** Prefills `prompt` through transformers.js (the product's prefill), then compares the two decode paths. */
async function checkOnPrompt(model: PreTrainedModel, ort: OrtClasses, decoder: StaticDecoder, prompt: number[]) {
  const cache = new DynamicCache();
  try {
    const first = await prefillIds(model, prompt, cache);
    const plainSession = (model as unknown as { sessions: Record<string, OrtSession> }).sessions.model!;
    const result = await checkStaticDecoder({
      ort,
      plain: plainSession,
      decoder,
      cache: cacheFeeds(cache),
      promptLength: cache.get_seq_length(),
      firstToken: first,
      steps: llmTunables.staticKvGuardSteps,
      maxRelDiff: llmTunables.staticKvGuardMaxRelDiff,
    });
    return { ...result, first };
  } finally {
    await cache.dispose();
  }
}

/** The greedy next token of `ids` from a prefill alone (a fresh cache, discarded). */
async function greedyByPrefill(model: PreTrainedModel, ids: number[]): Promise<number> {
  const cache = new DynamicCache();
  try {
    return await prefillIds(model, ids, cache);
  } finally {
    await cache.dispose();
  }
}

/**
 * The first step whose token `tokens[t]` is not what a prefill of `prefix + tokens[0..t)` picks, or null when every
 * step agrees: the reference that needs neither decode path's cache handling.
 */
async function firstRecomputeMismatch(model: PreTrainedModel, prefix: number[], tokens: number[]): Promise<number | null> {
  for (let t = 0; t < tokens.length; t++)
    if ((await greedyByPrefill(model, [...prefix, ...tokens.slice(0, t)])) !== tokens[t]) return t;
  return null;
}
