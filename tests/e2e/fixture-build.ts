/**
 * Test builds of the extension: the same sources, built with a fixture weights manifest in place of
 * models/manifest.json (wxt.config.ts reads SIDETALK_WEIGHTS_MANIFEST), so the built extension pins the fixture bytes
 * the local hub serves. Builds are cached by the manifest's hash and the product build's bytes (.output/chrome-mv3,
 * which `npm run test:e2e` rebuilds first): files whose fixtures are identical share one, and a source change makes a
 * new one.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { WeightsManifest } from '../../core/weights/manifest';

const BUILDS = resolve('.output/e2e');

/** Hash of every file of the product build: the sources it was made from, as far as a build can tell. */
function productBuildHash(): string {
  const root = resolve('.output/chrome-mv3');
  if (!existsSync(root)) return 'no-product-build';
  const h = createHash('sha256');
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())) {
    const file = join(entry.parentPath, entry.name);
    h.update(file.slice(root.length)).update(readFileSync(file));
  }
  return h.digest('hex');
}

export async function buildExtensionFor(manifest: WeightsManifest): Promise<string> {
  const json = JSON.stringify(manifest, null, 2);
  const hash = createHash('sha256').update(json).update(productBuildHash()).digest('hex').slice(0, 12);
  const outDir = join(BUILDS, hash);
  const extensionDir = join(outDir, 'chrome-mv3');
  if (existsSync(join(extensionDir, 'manifest.json'))) return extensionDir;
  mkdirSync(outDir, { recursive: true });
  const manifestFile = join(outDir, 'weights-manifest.json');
  writeFileSync(manifestFile, json);
  execFileSync(resolve('node_modules/.bin/wxt'), ['build'], {
    // Test builds keep the test hooks the e2e tests drive, whatever the caller's environment says.
    env: { ...process.env, SIDETALK_WEIGHTS_MANIFEST: manifestFile, SIDETALK_OUT_DIR: outDir, SIDETALK_RELEASE: '' },
    stdio: 'pipe',
  });
  if (!existsSync(join(extensionDir, 'manifest.json'))) throw new Error(`the test build for ${hash} produced no extension`);
  return extensionDir;
}
