/**
 * VAD cost per 32 ms frame over real espeak-ng speech plus silence: the shipped Silero v5 model computed in script as
 * the extension runs it (models/vad/silero-js.ts), beside onnxruntime-web's WASM backend (what ran it before), in the
 * same run over the same frames, and the script with its STFT as the basis product (before the FFT).
 * Prints JSON and a markdown table; the ratio that matters is ms per frame against the 32 ms real-time budget.
 *   npx jiti bench/vad/frame-cost.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import type { OrtLike } from '../../models/ort-like';
import { SileroVad } from '../../tests/fixtures/audio/silero-ort';
import { SileroVadJs, sileroWeights } from '../../models/vad/silero-js';

const dir = 'bench/out';
mkdirSync(dir, { recursive: true });
const wav = join(dir, 'vad-bench.wav');
execFileSync('sh', [
  '-c',
  `espeak-ng -v en-us -s 150 -w ${dir}/vad-raw.wav "The quick brown fox jumps over the lazy dog. Sidetalk listens while you speak." && sox ${dir}/vad-raw.wav -r 16000 -c 1 -b 16 ${wav} pad 1 1`,
]);
const bytes = readFileSync(wav);
const pcm16 = new Int16Array(bytes.buffer, bytes.byteOffset + 44, (bytes.length - 44) / 2);
const samples = Float32Array.from(pcm16, (v) => v / 32768);

(ort.env.wasm as { numThreads?: number }).numThreads = 1;
const vad = await SileroVad.create(
  ort as unknown as OrtLike,
  readFileSync('node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx'),
  {
    executionProviders: ['wasm'],
  },
);
const weights = sileroWeights(new Uint8Array(readFileSync('node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx')));
const js = new SileroVadJs(weights);
// The same computation with the STFT as the graph's strided Conv (the basis product), for the FFT's ratio.
const product = new SileroVadJs({ ...weights, window: null });
const frames = Math.floor(samples.length / 512);

async function pass(process: (f: Float32Array) => Promise<number> | number, times: number[]): Promise<number[]> {
  const probs: number[] = [];
  for (let i = 0; i < frames; i++) {
    const t0 = performance.now();
    probs.push(await process(samples.subarray(i * 512, (i + 1) * 512)));
    times.push(performance.now() - t0);
  }
  return probs;
}

function quantiles(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const q = (f: number) => +sorted[Math.min(sorted.length - 1, Math.floor(f * sorted.length))]!.toFixed(3);
  return { p50: q(0.5), p90: q(0.9), max: q(1) };
}

// Each runner from a reset, interleaved round by round; the first round warms the JIT and ORT's kernels and is not kept.
const ROUNDS = 4;
const runners = {
  onnx: { process: (f: Float32Array) => vad.process(f), reset: () => vad.reset(), times: [] as number[], probs: [] as number[] },
  script: {
    process: (f: Float32Array) => js.processSync(f),
    reset: () => js.reset(),
    times: [] as number[],
    probs: [] as number[],
  },
  product: {
    process: (f: Float32Array) => product.processSync(f),
    reset: () => product.reset(),
    times: [] as number[],
    probs: [] as number[],
  },
};
for (let round = 0; round < ROUNDS; round++) {
  for (const r of Object.values(runners)) {
    r.reset();
    const times: number[] = [];
    r.probs = await pass(r.process, times);
    if (round > 0) r.times.push(...times);
  }
}
const onnx = { msPerFrame: quantiles(runners.onnx.times), speechFrames: runners.onnx.probs.filter((p) => p > 0.5).length };
const script = { msPerFrame: quantiles(runners.script.times) };
const basisProduct = { msPerFrame: quantiles(runners.product.times) };
const maxDiff = Math.max(...runners.onnx.probs.map((p, i) => Math.abs(p - runners.script.probs[i]!)));
const result = {
  bench: 'vad-frame-cost',
  runtime: `onnxruntime-web ${ort.env.versions.web} wasm, 1 thread, Node ${process.version}`,
  frames,
  rounds: ROUNDS - 1,
  speechFrames: onnx.speechFrames,
  onnxMsPerFrame: onnx.msPerFrame,
  scriptMsPerFrame: script.msPerFrame,
  productMsPerFrame: basisProduct.msPerFrame,
  scriptOverOnnxP50: +(script.msPerFrame.p50 / onnx.msPerFrame.p50).toFixed(3),
  scriptOverProductP50: +(script.msPerFrame.p50 / basisProduct.msPerFrame.p50).toFixed(3),
  maxProbDiff: maxDiff,
};
console.log(JSON.stringify(result));
const row = (name: string, m: { p50: number; p90: number; max: number }) =>
  `| ${name} | ${m.p50} | ${m.p90} | ${m.max} | ${((m.p50 / 32) * 100).toFixed(1)} % |\n`;
console.log(
  `\n| runner | ms/frame p50 | p90 | max | share of 32 ms (p50) |\n|---|---|---|---|---|\n` +
    row('onnxruntime-web wasm (1 thread)', onnx.msPerFrame) +
    row('script (models/vad/silero-js.ts), STFT by FFT', script.msPerFrame) +
    row('script, STFT as the basis product (the graph’s Conv)', basisProduct.msPerFrame) +
    `\n${frames} frames × ${ROUNDS - 1} rounds, ${onnx.speechFrames} speech; largest probability difference ${maxDiff.toExponential(2)}`,
);
