/**
 * VAD cost per 32 ms frame: the real Silero v5 model through our runner (models/vad/silero.ts) on onnxruntime-web's
 * WASM backend — the same runtime and model file the extension ships — over real espeak-ng speech plus silence.
 * Prints JSON and a markdown table; the ratio that matters is ms per frame against the 32 ms real-time budget.
 *   npx jiti bench/vad/frame-cost.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { SileroVad, type OrtLike } from '../../models/vad/silero';

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
const frames = Math.floor(samples.length / 512);
const times: number[] = [];
let speech = 0;
for (let i = 0; i < frames; i++) {
  const t0 = performance.now();
  const p = await vad.process(samples.subarray(i * 512, (i + 1) * 512));
  times.push(performance.now() - t0);
  if (p > 0.5) speech += 1;
}
times.sort((a, b) => a - b);
const q = (f: number) => times[Math.min(times.length - 1, Math.floor(f * times.length))]!;
const result = {
  bench: 'vad-frame-cost',
  runtime: `onnxruntime-web ${ort.env.versions.web} wasm, 1 thread, Node ${process.version}`,
  frames,
  speechFrames: speech,
  msPerFrame: { p50: +q(0.5).toFixed(3), p90: +q(0.9).toFixed(3), max: +q(1).toFixed(3) },
  realTimeRatio: +(q(0.5) / 32).toFixed(4),
};
console.log(JSON.stringify(result));
console.log(
  `\n| frames | speech frames | ms/frame p50 | p90 | share of 32 ms budget |\n|---|---|---|---|---|\n| ${frames} | ${speech} | ${result.msPerFrame.p50} | ${result.msPerFrame.p90} | ${(result.realTimeRatio * 100).toFixed(1)} % |`,
);
