/**
 * Renders the generated avatar in headless Chromium (SwiftShader WebGL) through TalkingHead and saves screenshots to
 * tests/artifacts/avatar/. Run after build-avatar: npx jiti scripts/avatar/screenshot.ts [query …]
 * Each query is a look.html query string, e.g. "view=head&morph=viseme_aa:1".
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { buildPreview } from './build-preview';
import { serveDir } from './static-server';

const DEFAULT_SHOTS = [
  'view=upper',
  'view=head',
  'view=head&morph=viseme_aa:1',
  'view=head&morph=eyeBlinkLeft:1,eyeBlinkRight:1,mouthSmileLeft:1,mouthSmileRight:1',
  'view=full',
];

export async function screenshots(queries: string[]): Promise<string[]> {
  const dir = await buildPreview();
  const server = await serveDir(dir);
  const outDir = resolve('tests/artifacts/avatar');
  mkdirSync(outDir, { recursive: true });
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
  const files: string[] = [];
  try {
    const page = await browser.newPage({ viewport: { width: 400, height: 560 } });
    page.on('console', (m) => {
      if (m.type() === 'error') console.log('[page]', m.text());
    });
    page.on('pageerror', (e) => console.log('[pageerror]', e.message));
    for (const [i, q] of queries.entries()) {
      await page.goto(`${server.url}/look.html?${q}`);
      await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true, null, { timeout: 60_000 });
      await page.waitForTimeout(1500); // let moods/morph easing settle
      const file = resolve(outDir, `look-${i}-${q.replace(/[^a-z0-9]+/gi, '_').slice(0, 60)}.png`);
      await page.screenshot({ path: file });
      files.push(file);
    }
  } finally {
    await browser.close();
    await server.close();
  }
  return files;
}

if (process.argv[1] && /screenshot\.ts$/.test(process.argv[1])) {
  const qs = process.argv.slice(2);
  screenshots(qs.length ? qs : DEFAULT_SHOTS).then(
    (f) => console.log(f.join('\n')),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
