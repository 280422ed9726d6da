/**
 * The index-time measurement on the GPU machine (docs/benchmarks.md, "Page retrieval"): bundled into
 * bench/out/gpu-kit/retrieval-index.mjs by `npx jiti bench/retrieval/run.ts --gpu-kit`, which also writes the
 * tokenized page beside it (tokenizing needs transformers.js, which the kit does not carry). Prints one JSON array.
 *   node retrieval-index.mjs <batches.json> <ort dist dir> <webgpu index.js> [threads]
 * With `--whole`, <batches.json> is the whole pages' file (retrieval-whole.json, whole-page-batches.ts): the fp32
 * graph indexes each page on WebGPU, and on WASM at `threads` the pages whose WASM run stays under two minutes.
 */
import { readFileSync } from 'node:fs';
import { measureIndexTime, releaseGpu, type TokenBatch } from './index-time';
import { unpackBatch, type PackedPage } from './whole-page-batches';

/**
 * WASM rows only below this many chunks: the 250k-word page takes minutes a run. SIDETALK_WASM_MAX_CHUNKS raises it for
 * a run that can wait (this box, off the GPU machine's per-call limit).
 */
const WASM_MAX_CHUNKS = Number(process.env.SIDETALK_WASM_MAX_CHUNKS ?? 800);
/** SIDETALK_RETRIEVAL_EP=wasm (or webgpu): one backend only, e.g. WASM on a machine without dawn.node. */
const ONLY_EP = process.env.SIDETALK_RETRIEVAL_EP;

async function wholePages(file: string, distDir: string, webgpuModule: string, threads: number): Promise<unknown[]> {
  const pages = JSON.parse(readFileSync(file, 'utf8')) as PackedPage[];
  const rows: unknown[] = [];
  for (const p of pages) {
    const page = { pageChars: p.pageChars, chunks: p.chunks, batches: p.batches.map(unpackBatch) };
    const eps = (p.chunks <= WASM_MAX_CHUNKS ? (['webgpu', 'wasm'] as const) : (['webgpu'] as const)).filter((ep) =>
      ONLY_EP ? ep === ONLY_EP : true,
    );
    for (const ep of eps) {
      try {
        rows.push({
          words: p.words,
          ...(await measureIndexTime(page, {
            ep,
            format: 'float',
            threads,
            distDir,
            ...(ONLY_EP === 'wasm' ? {} : { webgpuModule }),
          })),
        });
      } catch (err) {
        rows.push({ words: p.words, ep, format: 'float', error: err instanceof Error ? err.message : String(err) });
      }
    }
  }
  return rows;
}

async function main(): Promise<void> {
  const whole = process.argv.includes('--whole');
  const [batchesFile, distDir, webgpuModule, threads = '4'] = process.argv.slice(2).filter((a) => a !== '--whole');
  if (!batchesFile || !distDir || !webgpuModule)
    throw new Error('usage: retrieval-index.mjs [--whole] <batches.json> <dist> <webgpu index.js> [threads]');
  if (whole) {
    const rows = await wholePages(batchesFile, distDir, webgpuModule, Number(threads));
    releaseGpu();
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    process.exit(0);
  }
  const page = JSON.parse(readFileSync(batchesFile, 'utf8')) as { pageChars: number; chunks: number; batches: TokenBatch[] };
  const results = [];
  const runs = [
    ['webgpu', 'int8'],
    ['webgpu', 'float'],
    ['wasm', 'int8'],
    ['wasm', 'float'],
  ] as const;
  for (const [ep, format] of runs) {
    try {
      results.push(await measureIndexTime(page, { ep, format, threads: Number(threads), distDir, webgpuModule }));
    } catch (err) {
      results.push({ ep, format, error: err instanceof Error ? err.message : String(err) });
    }
  }
  releaseGpu();
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  process.exit(0);
}

void main();
