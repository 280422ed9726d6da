// Bundles the in-browser GPU bench driver (bench/gpu-browser/run.ts) for Node on the GPU machine: the graph builders,
// the hub server and the e2e harness inside; playwright-core stays outside (scripts/bench/build-browser-kit.sh carries
// its package beside the bundle).
export default {
  input: 'bench/gpu-browser/run.ts',
  platform: 'node',
  external: [/^playwright-core/],
  output: { file: 'bench/out/browser-kit/stage/gpu-browser.mjs', format: 'esm', codeSplitting: false },
};
