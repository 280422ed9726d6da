/**
 * Stands in for `onnxruntime-web/webgpu` when the product's code is bundled for Node (rolldown.config.mjs): the same
 * onnxruntime-web build the extension ships (`ort.webgpu.mjs`), loaded with dawn.node as navigator.gpu
 * (bench/stages/ort-env.ts). transformers.js's web build reads `InferenceSession`, `Tensor` and `env` from it.
 *
 * It also makes transformers.js take its browser path in Node: its web build decides "Node" from
 * `process.release.name` and would then look for onnxruntime-node. Settings come from the environment:
 * SIDETALK_ORT_DIST (the dist folder), SIDETALK_WEBGPU_MODULE (the `webgpu` package's index.js; absent: WASM only),
 * SIDETALK_THREADS (WASM threads, default 4), SIDETALK_DAWN_TOGGLES (';'-separated dawn.node toggles, e.g.
 * `enable-dawn-features=vulkan_enable_f16_on_nvidia`, which Dawn needs before it offers shader-f16 on NVIDIA's Vulkan
 * driver; default none).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadOrt } from '../stages/ort-env';
import { serializeRuns } from '../../models/workers/run-lane';

Object.defineProperty(process, 'release', { value: { ...process.release, name: 'sidetalk-bench' }, configurable: true });

const webgpuModule = process.env.SIDETALK_WEBGPU_MODULE;
const distDir = resolve(process.env.SIDETALK_ORT_DIST ?? 'node_modules/onnxruntime-web/dist');
const loaded = await loadOrt({
  distDir,
  webgpu: Boolean(webgpuModule),
  webgpuModule,
  numThreads: Number(process.env.SIDETALK_THREADS ?? 4),
  dawnToggles: (process.env.SIDETALK_DAWN_TOGGLES ?? '').split(';').filter(Boolean),
});

// Set before transformers.js initialises, which would otherwise point the WASM files at a CDN (the extension points
// them at its own /ort/ folder, models/gpu/runtime.ts).
loaded.ort.env.wasm.wasmPaths = `${pathToFileURL(distDir).href}/`;

// One run at a time, as the extension's workers set it up (models/workers/ort-setup.ts, run-lane.ts).
serializeRuns(loaded.ort.InferenceSession as never);

export const ortAdapter = loaded.adapter;
export const ortVersion = loaded.version;
export const InferenceSession = loaded.ort.InferenceSession;
export const Tensor = loaded.ort.Tensor;
export const env = loaded.ort.env;
