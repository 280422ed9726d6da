/**
 * Test builds of the extension: the same sources, built with a fixture weights manifest in place of
 * models/manifest.json (wxt.config.ts reads SIDETALK_WEIGHTS_MANIFEST), so the built extension pins the fixture bytes
 * the local hub serves. `kind` 'test' keeps the test hooks; 'release-fixture-weights' is the release build's code
 * pinning the fixtures (core/build-kind.ts), for the release flows (tests/e2e/release-flows.e2e.ts). Builds are cached
 * by kind, the manifest's hash, the build configuration and the bytes of the build of the same code (.output/test/
 * chrome-mv3 for a test build, .output/chrome-mv3 for the release's code; `npm run test:e2e` rebuilds both first):
 * files whose fixtures are identical share one, and a source change makes a new one.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { WeightsManifest } from '../../core/weights/manifest';

const BUILDS = resolve('.output/e2e');

/** Hash of every file of the product build: the sources it was made from, as far as a build can tell. */
function sourcesBuildHash(kind: FixtureBuildKind): string {
  const root = resolve(kind === 'test' ? '.output/test/chrome-mv3' : '.output/chrome-mv3');
  if (!existsSync(root)) return `no-build-for-${kind}`;
  const h = createHash('sha256');
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())) {
    const file = join(entry.parentPath, entry.name);
    h.update(file.slice(root.length)).update(readFileSync(file));
  }
  return h.digest('hex');
}

export type FixtureBuildKind = 'test' | 'release-fixture-weights';

export async function buildExtensionFor(manifest: WeightsManifest, kind: FixtureBuildKind = 'test'): Promise<string> {
  const json = JSON.stringify(manifest, null, 2);
  const hash = createHash('sha256')
    .update(kind)
    .update(json)
    .update(readFileSync(resolve('wxt.config.ts')))
    .update(readFileSync(resolve('core/build-kind.ts')))
    .update(sourcesBuildHash(kind))
    .digest('hex')
    .slice(0, 12);
  const outDir = join(BUILDS, hash);
  const extensionDir = join(outDir, 'chrome-mv3');
  if (existsSync(join(extensionDir, 'manifest.json'))) return extensionDir;
  mkdirSync(outDir, { recursive: true });
  const manifestFile = join(outDir, 'weights-manifest.json');
  writeFileSync(manifestFile, json);
  execFileSync(resolve('node_modules/.bin/wxt'), ['build'], {
    // The kind asked for here, whatever the caller's environment says.
    env: { ...process.env, SIDETALK_WEIGHTS_MANIFEST: manifestFile, SIDETALK_OUT_DIR: outDir, SIDETALK_BUILD: kind },
    stdio: 'pipe',
  });
  if (!existsSync(join(extensionDir, 'manifest.json'))) throw new Error(`the test build for ${hash} produced no extension`);
  return extensionDir;
}
