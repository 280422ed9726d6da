/**
 * The product's LLM loop, both decode paths in one run (docs/llm-static-kv.md): `LlmRuntime` (models/llm/llm-runtime.ts:
 * the product's options, streamer, stopping criteria and prefix cache) loading the pinned repo's files over HTTP from
 * a local hub, on onnxruntime-web (WebGPU through dawn.node, or WASM), once on the plain path (transformers.js
 * generate) and once on the static-KV path (captured on WebGPU; on WASM the same graph without capture, which checks
 * the path but times nothing useful). Per path: time to the first token (the prefill), ms per decode token after it,
 * and the plain graph's session runs per token; the static runtime's load-time check gives the max |Δ logit| between
 * the paths on this device, and the two paths' answers are compared. Bundled by bench/product/rolldown.config.mjs.
 *
 *   node product-llm-loop.mjs [--shape full|tiny] [--graph bench|genai-builder|liquid-builder] [--device webgpu|wasm]
 *     [--dtype q4|q4f16] [--tokens 64] [--rounds 4] [--prompt-chars N] [--last-logits on|off] [--out f.json]
 * `--prompt-chars`: a question of about N characters instead of the short one (a long prefill, as a turn's prompt);
 * `--last-logits off`: load the plain graph as published (logits for every position; models/llm/last-logits.ts).
 * `--dtype` defaults to the pinned bundle's (models/registry.ts); q4f16 is the hub's half-precision variant.
 * Environment: SIDETALK_ORT_DIST, SIDETALK_WEBGPU_MODULE, SIDETALK_THREADS (bench/product/ort-shim.ts).
 */
import * as shim from './ort-shim';
import { serveLocalHub } from './local-hub';
import { LlmRuntime } from '../../models/llm/llm-runtime';
import type { StaticKvMode } from '../../models/llm/decode-path';
import type { OrtClasses } from '../../models/llm/static-kv/static-decoder';
import { LLM_MODEL } from '../../models/registry';
import { llmTunables, setTunable } from '../../core/tunables';
import { LFM2_1_2B, LFM2_TINY, type LlmDtype } from '../stages/llm-graph';
import { writeLlmRepo, type LlmGraphKind } from './llm-hub';
import { mediansAfterFirst, parseArgs, r1, report, timeRuns, type TimedCall } from './loop-timing';

const args = parseArgs();
const shapeName = args.get('shape') ?? 'full';
const graphKind = (args.get('graph') ?? 'bench') as LlmGraphKind;
const device = (args.get('device') ?? 'webgpu') as 'webgpu' | 'wasm';
const tokens = Number(args.get('tokens') ?? 64);
const rounds = Number(args.get('rounds') ?? 4);
const shape = shapeName === 'tiny' ? LFM2_TINY : LFM2_1_2B;
const dtype = (args.get('dtype') ?? LLM_MODEL.dtype) as LlmDtype;
const promptChars = Number(args.get('prompt-chars') ?? 0);
const lastLogits = args.get('last-logits') !== 'off';
const LONG = 'Please tell me, in a few words, what you think of the sea and the mountains today. ';
const PROMPT = [
  {
    role: 'user' as const,
    content:
      promptChars > 0
        ? LONG.repeat(Math.ceil(promptChars / LONG.length)).slice(0, promptChars)
        : 'Tell me about the lighthouse keeper.',
  },
];

async function runPath(mode: StaticKvMode) {
  const t0 = performance.now();
  const llm = await LlmRuntime.load({
    device,
    dtype,
    warmUp: true,
    staticKv: mode,
    lastLogits,
    ort: shim as unknown as OrtClasses,
  });
  const loadMs = performance.now() - t0;
  const session = (llm.model as unknown as { sessions: Record<string, { run: (f: never) => Promise<unknown> }> }).sessions.model!;
  let calls: TimedCall[] = [];
  timeRuns(session, 'model', () => calls);
  const perRound = [];
  let text = '';
  for (let r = 0; r < rounds; r++) {
    await llm.resetCache();
    calls = [];
    const begin = performance.now();
    const { stats, text: answer } = await llm.generate(PROMPT, { maxNewTokens: tokens, onDelta: () => undefined });
    const finish = performance.now();
    text = answer;
    const prefillEnd = calls[0]!.end;
    if (stats.newTokens < 2) throw new Error(`${mode} round ${r}: only ${stats.newTokens} tokens`);
    perRound.push({
      newTokens: stats.newTokens,
      promptTokens: stats.promptTokens,
      plainRuns: calls.length,
      firstTokenMs: r1(prefillEnd - begin),
      decodeMsPerToken: r1((finish - prefillEnd) / (stats.newTokens - 1)),
    });
    console.error(`${mode} round ${r}: ${JSON.stringify(perRound.at(-1))}`);
  }
  const medians = mediansAfterFirst(perRound, ['firstTokenMs', 'decodeMsPerToken'] as const);
  const result = {
    decodeStatus: llm.decodeStatus,
    loadMs: Math.round(loadMs),
    ...(llm.staticCheck ? { loadCheck: llm.staticCheck } : {}),
    medianFirstTokenMs: medians.medianFirstTokenMs!,
    medianDecodeMsPerToken: medians.medianDecodeMsPerToken!,
    perRound,
  };
  await llm.dispose();
  return { result, text };
}

async function main(): Promise<void> {
  // The static cache's capacity is the token budget; a tiny graph's rotary table is shorter than the default.
  if (shape.maxPositions < llmTunables.contextTokenBudget) setTunable('llm.contextTokenBudget', shape.maxPositions);
  const { written, close } = await serveLocalHub((root) => writeLlmRepo(root, shape, dtype, graphKind));
  const plain = await runPath('plain');
  // WASM has no graph capture: the static graph runs uncaptured there, so the smoke still exercises the path.
  const fast = await runPath(device === 'webgpu' ? 'auto' : 'static');
  const check = fast.result.loadCheck;
  const result = {
    bench: 'product-llm-loop',
    runtime: `onnxruntime-web ${shim.ortVersion} ${device}`,
    adapter: shim.ortAdapter
      ? `${shim.ortAdapter.vendor} ${shim.ortAdapter.architecture} ${shim.ortAdapter.description ?? ''}`.trim()
      : null,
    shape: shapeName,
    graph: graphKind,
    lastLogits,
    promptChars,
    dtype,
    graphFiles: { buildMs: Math.round(written.graphMs), onnxBytes: written.onnxBytes, dataBytes: written.dataBytes },
    tokensPerRound: tokens,
    plain: plain.result,
    staticKv: fast.result, // its decodeStatus says captured, static (WASM) or plain with the reason
    comparison: {
      sameAnswer: plain.text === fast.text,
      maxAbsLogitDiff: check?.maxAbsDiff ?? null,
      relLogitDiff: check?.relDiff ?? null,
      decodeSpeedup:
        fast.result.decodeStatus.decode === 'plain'
          ? null
          : Math.round((plain.result.medianDecodeMsPerToken / fast.result.medianDecodeMsPerToken) * 100) / 100,
    },
  };
  report(result, args.get('out'));
  await close();
}

await main();
process.exit(0);
