/**
 * The index-time measurement on the GPU machine (docs/benchmarks.md, "Page retrieval"): bundled into
 * bench/out/gpu-kit/retrieval-index.mjs by `npx jiti bench/retrieval/run.ts --gpu-kit`, which also writes the
 * tokenized page beside it (tokenizing needs transformers.js, which the kit does not carry). Prints one JSON array.
 *   node retrieval-index.mjs <batches.json> <ort dist dir> <webgpu index.js> [threads]
 */
import { readFileSync } from 'node:fs';
import { measureIndexTime, releaseGpu, type TokenBatch } from './index-time';

async function main(): Promise<void> {
  const [batchesFile, distDir, webgpuModule, threads = '4'] = process.argv.slice(2);
  if (!batchesFile || !distDir || !webgpuModule)
    throw new Error('usage: retrieval-index.mjs <batches.json> <dist> <webgpu index.js> [threads]');
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
