/**
 * VAD cost per 32 ms frame over real espeak-ng speech plus silence: the shipped Silero v5 model computed in script as
 * the extension runs it (models/vad/silero-js.ts), beside onnxruntime-web's WASM backend (what ran it before), in the
 * same run over the same frames.
 * Prints JSON and a markdown table; the ratio that matters is ms per frame against the 32 ms real-time budget.
 *   npx jiti bench/vad/frame-cost.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import type { OrtLike } from '../../models/ort-like';
import { SileroVad } from '../../tests/fixtures/audio/silero-ort';
import { SileroVadJs } from '../../models/vad/silero-js';

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
const js = SileroVadJs.fromOnnx(new Uint8Array(readFileSync('node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx')));
const frames = Math.floor(samples.length / 512);

async function time(process: (f: Float32Array) => Promise<number> | number) {
  const times: number[] = [];
  const probs: number[] = [];
  for (let i = 0; i < frames; i++) {
    const t0 = performance.now();
    probs.push(await process(samples.subarray(i * 512, (i + 1) * 512)));
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const q = (f: number) => +times[Math.min(times.length - 1, Math.floor(f * times.length))]!.toFixed(3);
  return { probs, msPerFrame: { p50: q(0.5), p90: q(0.9), max: q(1) }, speechFrames: probs.filter((p) => p > 0.5).length };
}

// Two passes each, interleaved; the second pass of each is reported (the first warms the JIT and ORT's kernels).
await time((f) => vad.process(f));
await time((f) => js.processSync(f));
vad.reset();
js.reset();
const onnx = await time((f) => vad.process(f));
const script = await time((f) => js.processSync(f));
const maxDiff = Math.max(...onnx.probs.map((p, i) => Math.abs(p - script.probs[i]!)));
const result = {
  bench: 'vad-frame-cost',
  runtime: `onnxruntime-web ${ort.env.versions.web} wasm, 1 thread, Node ${process.version}`,
  frames,
  speechFrames: onnx.speechFrames,
  onnxMsPerFrame: onnx.msPerFrame,
  scriptMsPerFrame: script.msPerFrame,
  scriptOverOnnxP50: +(script.msPerFrame.p50 / onnx.msPerFrame.p50).toFixed(3),
  maxProbDiff: maxDiff,
};
console.log(JSON.stringify(result));
console.log(
  `\n| runner | ms/frame p50 | p90 | max | share of 32 ms (p50) |\n|---|---|---|---|---|\n` +
    `| onnxruntime-web wasm (1 thread) | ${onnx.msPerFrame.p50} | ${onnx.msPerFrame.p90} | ${onnx.msPerFrame.max} | ${((onnx.msPerFrame.p50 / 32) * 100).toFixed(1)} % |\n` +
    `| script (models/vad/silero-js.ts) | ${script.msPerFrame.p50} | ${script.msPerFrame.p90} | ${script.msPerFrame.max} | ${((script.msPerFrame.p50 / 32) * 100).toFixed(1)} % |\n` +
    `\n${frames} frames, ${onnx.speechFrames} speech; largest probability difference ${maxDiff.toExponential(2)}`,
);
