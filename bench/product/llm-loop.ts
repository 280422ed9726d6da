/**
 * The product's LLM loop against the raw runtime, in one run: `LlmRuntime` (models/llm/llm-runtime.ts: transformers.js
 * generate with the product's options, its streamer, stopping criteria and prefix cache) loading the pinned repo's
 * files over HTTP from a local hub, on onnxruntime-web (WebGPU through dawn.node, or WASM). Every `session.run` of
 * the model is timed where transformers.js calls it, so the loop's time per decode token is compared with the
 * runtime's own time per token, measured in the same steps. Bundled by bench/product/rolldown.config.mjs.
 *
 *   node product-llm-loop.mjs [--shape full|tiny] [--device webgpu|wasm] [--dtype q4|q4f16] [--tokens 64] [--rounds 4]
 *     [--out f.json]
 * `--dtype` defaults to the pinned bundle's (models/registry.ts); q4f16 is the hub's half-precision variant.
 * Environment: SIDETALK_ORT_DIST, SIDETALK_WEBGPU_MODULE, SIDETALK_THREADS (bench/product/ort-shim.ts).
 */
import { ortAdapter, ortVersion } from './ort-shim';
import { serveLocalHub } from './local-hub';
import { LlmRuntime } from '../../models/llm/llm-runtime';
import { LLM_MODEL } from '../../models/registry';
import { LFM2_1_2B, LFM2_TINY, type LlmDtype } from '../stages/llm-graph';
import { writeLlmRepo } from './llm-hub';
import { mediansAfterFirst, parseArgs, r1, ratio, report, runMs, timeRuns, type TimedCall } from './loop-timing';

const args = parseArgs();
const shapeName = args.get('shape') ?? 'full';
const device = (args.get('device') ?? 'webgpu') as 'webgpu' | 'wasm';
const tokens = Number(args.get('tokens') ?? 64);
const rounds = Number(args.get('rounds') ?? 4);
const shape = shapeName === 'tiny' ? LFM2_TINY : LFM2_1_2B;
const dtype = (args.get('dtype') ?? LLM_MODEL.dtype) as LlmDtype;

async function main(): Promise<void> {
  const { written, close } = await serveLocalHub((root) => writeLlmRepo(root, shape, dtype));
  const t0 = performance.now();
  const llm = await LlmRuntime.load({ device, dtype, warmUp: true });
  const loadMs = performance.now() - t0;
  const session = (llm.model as unknown as { sessions: Record<string, { run: (f: never) => Promise<unknown> }> }).sessions.model!;
  let calls: TimedCall[] = [];
  timeRuns(session, 'model', () => calls);
  const perRound = [];
  for (let r = 0; r < rounds; r++) {
    await llm.resetCache();
    calls = [];
    const begin = performance.now();
    const { stats } = await llm.generate([{ role: 'user', content: 'Tell me about the lighthouse keeper.' }], {
      maxNewTokens: tokens,
      onDelta: () => undefined,
    });
    const finish = performance.now();
    const decode = calls.slice(1);
    if (decode.length < 2) throw new Error(`round ${r}: only ${calls.length} model runs (${stats.newTokens} tokens)`);
    const loopMs = (finish - decode[0]!.start) / decode.length;
    const decodeRunMs = runMs(decode) / decode.length;
    perRound.push({
      newTokens: stats.newTokens,
      promptTokens: stats.promptTokens,
      runs: calls.length,
      beforeFirstRunMs: r1(calls[0]!.start - begin),
      prefillRunMs: r1(calls[0]!.end - calls[0]!.start),
      prefillToDecodeMs: r1(decode[0]!.start - calls[0]!.end),
      loopMsPerToken: r1(loopMs),
      runMsPerToken: r1(decodeRunMs),
      loopOverRun: ratio(loopMs, decodeRunMs),
    });
    console.error(`round ${r}: ${JSON.stringify(perRound.at(-1))}`);
  }
  const result = {
    bench: 'product-llm-loop',
    runtime: `onnxruntime-web ${ortVersion} ${device}`,
    adapter: ortAdapter ? `${ortAdapter.vendor} ${ortAdapter.architecture} ${ortAdapter.description ?? ''}`.trim() : null,
    shape: shapeName,
    dtype,
    graph: { buildMs: Math.round(written.graphMs), onnxBytes: written.onnxBytes, dataBytes: written.dataBytes },
    loadMs: Math.round(loadMs),
    tokensPerRound: tokens,
    ...mediansAfterFirst(perRound, [
      'loopMsPerToken',
      'runMsPerToken',
      'loopOverRun',
      'beforeFirstRunMs',
      'prefillToDecodeMs',
    ] as const),
    perRound,
  };
  report(result, args.get('out'));
  await llm.dispose();
  await close();
}

await main();
process.exit(0);
