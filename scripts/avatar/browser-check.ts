/**
 * End-to-end check of <Avatar> in headless Chromium: loads the default GLB through TalkingHead, streams two
 * synthetic 24 kHz speech-like chunks with text, screenshots mid-sentence, interrupts, and asserts the playback events
 * (started → level > 0 → ended{interrupted}). Run: npx jiti scripts/avatar/browser-check.ts  (~20 s)
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { buildPreview } from './build-preview';
import { serveDir } from './static-server';

export async function browserCheck(): Promise<{ ok: boolean; report: string[] }> {
  const dir = await buildPreview();
  const server = await serveDir(dir);
  const out = resolve('tests/artifacts/avatar');
  mkdirSync(out, { recursive: true });
  const report: string[] = [];
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
  let ok = true;
  const check = (cond: boolean, what: string): void => {
    report.push(`${cond ? 'ok  ' : 'FAIL'} ${what}`);
    if (!cond) ok = false;
  };
  try {
    const page = await browser.newPage({ viewport: { width: 400, height: 560 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/404/.test(m.text())) errors.push(m.text());
    });
    await page.goto(`${server.url}/index.html`);
    await page.waitForFunction(() => !!(window as unknown as { harness: { handle?: unknown } }).harness.handle, null, {
      timeout: 60_000,
    });
    await page.waitForTimeout(800);
    await page.screenshot({ path: resolve(out, 'component-idle.png') });
    await page.evaluate(async () => {
      const h = (window as unknown as { harness: { handle: { speakChunk(p: Float32Array, t: string): Promise<void> } } }).harness
        .handle;
      // Speech-like test signal: a 140 Hz buzz with formant-ish harmonics, ~4 syllables per second.
      const make = (sec: number): Float32Array => {
        const sr = 24000;
        const pcm = new Float32Array(Math.round(sec * sr));
        for (let i = 0; i < pcm.length; i++) {
          const t = i / sr;
          const syl = Math.max(0, Math.sin(Math.PI * 4 * t)) ** 0.6;
          pcm[i] =
            0.25 *
            syl *
            (Math.sin(2 * Math.PI * 140 * t) + 0.5 * Math.sin(2 * Math.PI * 700 * t) + 0.3 * Math.sin(2 * Math.PI * 1200 * t));
        }
        return pcm;
      };
      await h.speakChunk(make(2.0), 'Hello! My name is Sidetalk.');
      await h.speakChunk(make(2.0), 'How can I help you today?');
    });
    await page.waitForTimeout(1200);
    await page.screenshot({ path: resolve(out, 'component-speaking.png') });
    const mid = await page.evaluate(() => {
      const h = (window as unknown as { harness: { log: Array<{ type: string }>; levels: number[] } }).harness;
      return { types: h.log.map((e) => e.type), maxLevel: Math.max(0, ...h.levels) };
    });
    check(mid.types.includes('started'), `started event (log: ${mid.types.join(',')})`);
    check(mid.maxLevel > 0.01, `level events while speaking (max RMS ${mid.maxLevel.toFixed(3)})`);
    await page.evaluate(() => (window as unknown as { harness: { handle: { interrupt(): void } } }).harness.handle.interrupt());
    await page.waitForTimeout(300);
    const end = await page.evaluate(
      () => (window as unknown as { harness: { log: Array<{ type: string; v?: unknown }> } }).harness.log,
    );
    const ended = end.filter((e) => e.type === 'ended');
    check(ended.length === 1, `exactly one ended event (${ended.length})`);
    check(
      JSON.stringify(ended[0]?.v) === '{"interrupted":true}',
      `ended reports the interruption (${JSON.stringify(ended[0]?.v)})`,
    );
    check(errors.length === 0, `no page errors (${errors.join(' | ').slice(0, 300)})`);
  } finally {
    await browser.close();
    await server.close();
  }
  return { ok, report };
}

if (process.argv[1] && /browser-check\.ts$/.test(process.argv[1])) {
  browserCheck().then(
    ({ ok, report }) => {
      console.log(report.join('\n'));
      process.exit(ok ? 0 : 1);
    },
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
