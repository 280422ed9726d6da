/**
 * Time to index a 100,000-character page: the page's chunks, tokenized and batched as the product does
 * (tokenize-page.ts), run through an all-MiniLM-L6-v2-shaped int8 graph (minilm-graph.ts) on onnxruntime-web's WASM
 * EP in Node, or its WebGPU EP through dawn.node on the GPU machine (gpu-index.ts), then pooled. Needs no
 * transformers.js, so it bundles into the GPU kit.
 */
import { meanPoolNormalized } from '../../core/page/dense';
import { loadOrt, releaseGpu } from '../stages/ort-env';
import { now, round } from '../stages/measure';
import { buildMiniLmGraph } from './minilm-graph';

export interface IndexTimeResult {
  ep: 'wasm' | 'webgpu';
  /** float: the pinned fp32 export's form; int8: the repo's q8 export's, for comparison. */
  format: 'int8' | 'float';
  threads: number;
  pageChars: number;
  chunks: number;
  tokens: number;
  batches: number;
  sessionCreateMs: number;
  /** Tokenize + run + pool for every chunk of the page, after one warm-up page. */
  indexMs: number;
  perChunkMs: number;
  /** One question (tokenize + run + pool). */
  questionMs: number;
  adapter?: string;
}

/** One batch as the tokenizer pads it: row-major ids, mask and token types, [rows, length]. */
export interface TokenBatch {
  rows: number;
  length: number;
  ids: number[];
  mask: number[];
  types: number[];
}

/** Runs the MiniLM-shaped graph over the batches on one EP (after one warm-up pass) and pools, as the product does. */
export async function measureIndexTime(
  page: { pageChars: number; chunks: number; batches: TokenBatch[] },
  opts: { ep: 'wasm' | 'webgpu'; threads: number; distDir: string; webgpuModule?: string; format?: 'int8' | 'float' },
): Promise<IndexTimeResult> {
  const env = await loadOrt({
    distDir: opts.distDir,
    webgpu: opts.ep === 'webgpu' || Boolean(opts.webgpuModule),
    webgpuModule: opts.webgpuModule,
    numThreads: opts.threads,
  });
  const { ort } = env;
  const t0 = now();
  const session = await ort.InferenceSession.create(buildMiniLmGraph(opts.format ?? 'float').onnx, {
    executionProviders: [opts.ep],
    graphOptimizationLevel: 'all',
  });
  const sessionCreateMs = now() - t0;
  const run = async (b: TokenBatch) => {
    const t = (values: number[]) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), [b.rows, b.length]);
    const out = await session.run({ input_ids: t(b.ids), attention_mask: t(b.mask), token_type_ids: t(b.types) });
    const hidden = out.last_hidden_state!;
    const data = (await hidden.getData()) as Float32Array;
    meanPoolNormalized(data, hidden.dims as [number, number, number], b.mask);
  };
  for (const b of page.batches) await run(b); // warm-up: kernels compiled, buffers sized
  const t1 = now();
  for (const b of page.batches) await run(b);
  const indexMs = now() - t1;
  // A ten-token question ([CLS] … [SEP]; any ids below the vocabulary size do for random weights).
  const question: TokenBatch = {
    rows: 1,
    length: 10,
    ids: [101, 2129, 2146, 2003, 1996, 12480, 9398, 2005, 1029, 102],
    mask: Array(10).fill(1),
    types: Array(10).fill(0),
  };
  const q: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = now();
    await run(question);
    q.push(now() - t);
  }
  await session.release();
  return {
    ep: opts.ep,
    format: opts.format ?? 'float',
    threads: opts.threads,
    pageChars: page.pageChars,
    chunks: page.chunks,
    tokens: page.batches.reduce((s, b) => s + b.mask.reduce((a, m) => a + m, 0), 0),
    batches: page.batches.length,
    sessionCreateMs: round(sessionCreateMs, 0),
    indexMs: round(indexMs, 0),
    perChunkMs: round(indexMs / page.chunks, 1),
    questionMs: round(q.sort((a, b) => a - b)[2]!, 1),
    ...(opts.ep === 'webgpu' && env.adapter
      ? { adapter: [env.adapter.vendor, env.adapter.architecture, env.adapter.description].filter(Boolean).join(' ') }
      : {}),
  };
}

/** Lets the process exit after a WebGPU run (dawn.node holds it otherwise). */
export { releaseGpu };
