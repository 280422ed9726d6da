/**
 * The test build of the extension pinned to the GPU hub's manifest (gpu-hub.ts), for scripts/bench/build-browser-kit.sh:
 *   npx jiti bench/gpu-browser/build-extension.ts <manifest.json>          prints the built extension's folder
 *   npx jiti bench/gpu-browser/build-extension.ts <manifest.json> --hash   prints the manifest's hash (run.ts checks it)
 */
import { readFileSync } from 'node:fs';
import { parseWeightsManifest } from '../../core/weights/manifest';
import { buildExtensionFor } from '../../tests/e2e/fixture-build';
import { manifestHash } from './gpu-hub';

const file = process.argv[2];
if (!file) throw new Error('usage: build-extension.ts <manifest.json> [--hash]');
const manifest = parseWeightsManifest(JSON.parse(readFileSync(file, 'utf8')));
console.log(process.argv.includes('--hash') ? manifestHash(manifest) : await buildExtensionFor(manifest));
