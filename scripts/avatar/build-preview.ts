/**
 * Bundles the preview pages (scripts/avatar/preview) with Vite into tests/fixtures/generated/avatar-preview, with the
 * default GLB beside them. Run: npx jiti scripts/avatar/build-preview.ts
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'vite';

export const PREVIEW_DIR = resolve('tests/fixtures/generated/avatar-preview');

export async function buildPreview(): Promise<string> {
  const root = resolve('scripts/avatar/preview');
  await build({
    root,
    base: './',
    logLevel: 'warn',
    configFile: false,
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    build: {
      outDir: PREVIEW_DIR,
      emptyOutDir: true,
      minify: false,
      rollupOptions: { input: { look: resolve(root, 'look.html'), index: resolve(root, 'index.html') } },
    },
  } as Parameters<typeof build>[0]);
  mkdirSync(PREVIEW_DIR, { recursive: true });
  copyFileSync(resolve('public/avatars/sidetalk-default.glb'), resolve(PREVIEW_DIR, 'sidetalk-default.glb'));
  return PREVIEW_DIR;
}

if (process.argv[1] && /build-preview\.ts$/.test(process.argv[1])) {
  buildPreview().then(
    (d) => console.log(`preview built in ${d}`),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
