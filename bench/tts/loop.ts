/**
 * Pocket TTS loop bench on the fixture bundle (onnxruntime-node, CPU, 1 thread). Prints JSON:
 * frames/s, audio seconds per compute second, first-frame latency and its ratio to the total.
 * The fixture graphs are trivial, so this measures the driver's own overhead (state copies of the real 18/56
 * layouts, tensor creation, threading), not model speed.   Run: npx jiti bench/tts/loop.ts
 */
import * as ortNode from 'onnxruntime-node';
import { synthesize } from '../../models/tts/pocket/generator';
import { PocketModel } from '../../models/tts/pocket/model';
import type { OrtLike } from '../../models/tts/pocket/ort-types';
import { buildPocketBundle } from '../../tests/fixtures/pocket/generate';

const ort = ortNode as unknown as OrtLike;
const model = await PocketModel.load({
  ort,
  files: buildPocketBundle({ eosAt: 40 }),
  sessionOptions: { wasm: { executionProviders: ['cpu'], intraOpNumThreads: 1 } },
});
const voice = model.voices.get('alba')!;
const text = 'hello world hello world hello world hello world hello world.';
const runs: { frames: number; totalMs: number; firstMs: number }[] = [];
for (let r = 0; r < 3; r++) {
  const t0 = performance.now();
  let first = 0;
  let frames = 0;
  for await (const _f of synthesize(model, text, voice, { temperature: 0 })) {
    if (frames++ === 0) first = performance.now() - t0;
  }
  runs.push({ frames, totalMs: performance.now() - t0, firstMs: first });
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const totalMs = med(runs.map((r) => r.totalMs));
const firstMs = med(runs.map((r) => r.firstMs));
const frames = runs[0]!.frames;
console.log(
  JSON.stringify({
    bench: 'tts/loop (fixture bundle, onnxruntime-node cpu, 1 thread)',
    frames,
    framesPerSecond: +(frames / (totalMs / 1000)).toFixed(2),
    realtimeFactor: +((frames * 0.08) / (totalMs / 1000)).toFixed(2),
    firstFrameMs: +firstMs.toFixed(1),
    totalMs: +totalMs.toFixed(1),
    firstFrameToTotalRatio: +(firstMs / totalMs).toFixed(3),
    runs: runs.length,
  }),
);
