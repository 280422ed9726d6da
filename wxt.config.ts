import { defineConfig } from 'wxt';
import preact from '@preact/preset-vite';
import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { planBuild } from './core/build-kind';

/**
 * Runtime files copied from node_modules into the build, so no binary is committed and nothing loads from a CDN:
 * the onnxruntime-web wasm that transformers.js and our own sessions share (one pinned version), the Silero VAD
 * model that ships in @ricky0123/vad-web, and pdf.js's worker.
 */
const RUNTIME_FILES: { from: string; to: string }[] = [
  {
    from: 'node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.asyncify.mjs',
    to: 'ort/ort-wasm-simd-threaded.asyncify.mjs',
  },
  {
    from: 'node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.asyncify.wasm',
    to: 'ort/ort-wasm-simd-threaded.asyncify.wasm',
  },
  { from: 'node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx', to: 'vad/silero_vad_v5.onnx' },
  // pdf.js's worker, for reading PDFs in the offscreen document (docs/tools.md, "PDFs").
  { from: 'node_modules/pdfjs-dist/build/pdf.worker.min.mjs', to: 'pdfjs/pdf.worker.min.mjs' },
];

// Host permissions: only the model hub and its CDN redirects (docs/security.md, "Host permissions", says what they
// expose and why they stay). Open-Meteo and Wikipedia answer cross-origin requests with CORS, so the tools reach them
// with no permission. A user-chosen mirror or model server is requested at run time, never granted up front.
export const HOST_PERMISSIONS = ['https://huggingface.co/*', 'https://*.huggingface.co/*', 'https://*.hf.co/*'];

// A model server the user saves (Settings → Model server): any https origin, or plain http to this computer only
// (core/remote-llm/config.ts LOOPBACK_HOSTS). Match patterns without a port match every port.
export const OPTIONAL_HOST_PERMISSIONS = ['https://*/*', 'http://localhost/*', 'http://127.0.0.1/*', 'http://[::1]/*'];

/**
 * `npm run build` (and `npm run zip`) is the release build users install: the test hooks (debug panel, fault
 * injection, probes, the scripted model stand-in, the tool endpoint override) are compiled out. Only
 * `SIDETALK_BUILD=test` (`npm run build:test`, what the e2e tests, the room tests and the benches load) keeps them;
 * any other value is the release (core/build-kind.ts, docs/security.md). SIDETALK_WEIGHTS_MANIFEST names a fixture
 * manifest that replaces models/manifest.json (tests/e2e/fixture-build.ts): a release build refuses it.
 * SIDETALK_OUT_DIR keeps a build apart from the others.
 */
const BUILD = planBuild(process.env);
if (BUILD.warning) console.warn(`[sidetalk] ${BUILD.warning}`);
const WEIGHTS_MANIFEST = resolve('models/manifest.json');
const MANIFEST_OVERRIDE = BUILD.weightsManifest ? resolve(BUILD.weightsManifest) : null;

export const PERMISSIONS = ['sidePanel', 'offscreen', 'storage', 'unlimitedStorage', 'scripting', 'activeTab'];

export default defineConfig({
  srcDir: '.',
  outDir: BUILD.outDir,
  entrypointsDir: 'entrypoints',
  publicDir: 'public',
  manifest: {
    name: `Sidetalk${BUILD.nameSuffix}`,
    description: 'Talk to a local voice assistant in the side panel. Speech, language and voice models run on your GPU.',
    permissions: PERMISSIONS,
    host_permissions: HOST_PERMISSIONS,
    optional_host_permissions: OPTIONAL_HOST_PERMISSIONS,
    minimum_chrome_version: '124',
    content_security_policy: {
      extension_pages: "script-src 'self' 'wasm-unsafe-eval'; object-src 'self';",
    },
    cross_origin_embedder_policy: { value: 'require-corp' },
    cross_origin_opener_policy: { value: 'same-origin' },
    icons: { 16: 'icons/16.png', 32: 'icons/32.png', 48: 'icons/48.png', 128: 'icons/128.png' },
    action: { default_title: 'Sidetalk', default_icon: { 16: 'icons/16.png', 32: 'icons/32.png' } },
    commands: {
      _execute_action: {
        suggested_key: { default: 'Alt+Shift+S' },
        description: 'Open Sidetalk',
      },
      'toggle-listening': {
        suggested_key: { default: 'Alt+Shift+L' },
        description: 'Start or stop hands-free listening',
      },
    },
  },
  hooks: {
    'build:publicAssets': (_wxt, files) => {
      for (const file of RUNTIME_FILES) files.push({ absoluteSrc: resolve(file.from), relativeDest: file.to });
    },
  },
  vite: () => ({
    define: { __SIDETALK_TEST_HOOKS__: JSON.stringify(BUILD.testHooks) },
    plugins: [
      preact(),
      {
        name: 'sidetalk-weights-manifest-override',
        enforce: 'pre' as const,
        load(id: string) {
          if (!MANIFEST_OVERRIDE || id.split('?')[0] !== WEIGHTS_MANIFEST) return null;
          return readFileSync(MANIFEST_OVERRIDE, 'utf8');
        },
      },
      {
        // onnxruntime-web names its wasm with `new URL(…, import.meta.url)`, so Vite emits a hashed 27 MB copy. Every
        // context sets wasmPaths to the copy in /ort/, so that second copy is dead weight in the package: drop it.
        name: 'sidetalk-drop-duplicate-ort-wasm',
        generateBundle(_options: unknown, bundle: Record<string, unknown>) {
          for (const name of Object.keys(bundle)) if (/ort-wasm-simd-threaded[^/]*\.wasm$/.test(name)) delete bundle[name];
        },
      },
    ],
  }),
});
