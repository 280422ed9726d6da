// Bundles the product-loop benches for Node with the product's browser runtime: transformers.js's web build and
// onnxruntime-web (through ort-shim.ts), as the extension's bundle has them. Output: bench/out/gpu-kit/product-*.mjs.
import { resolve } from 'node:path';

const alias = {
  '@huggingface/transformers': resolve('node_modules/@huggingface/transformers/dist/transformers.web.js'),
  'onnxruntime-web/webgpu': resolve('bench/product/ort-shim.ts'),
};

export default ['llm-loop', 'tts-loop', 'tts-decoder-thread', 'asr-loop', 'pipeline-loop'].map((name) => ({
  input: `bench/product/${name}.ts`,
  platform: 'node',
  resolve: { alias },
  output: { file: `bench/out/gpu-kit/product-${name}.mjs`, format: 'esm', codeSplitting: false },
}));
