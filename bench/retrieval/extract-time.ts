/**
 * Time of the built page extractor (.output/chrome-mv3/extract.js, `npm run build` first) inside a page of headless
 * Chromium, measured in the page (performance.now around the script), on whole pages of 15k / 60k / 240k words
 * (tests/fixtures/retrieval/whole-page.ts as h1/h2/p). Median of 3 per size. `--extractor a.js,b.js` times other
 * builds of it in the same run (e.g. before and after a change). Hold the e2e lock:
 *   flock /tmp/sidetalk-e2e.lock npx jiti bench/retrieval/extract-time.ts [--extractor a.js,b.js]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { pageHtml, wholePage } from '../../tests/fixtures/retrieval/whole-page';

const CHROMIUM = process.env.SIDETALK_CHROMIUM ?? '/usr/bin/chromium';
const SIZES = [15_000, 60_000, 240_000];

async function main(): Promise<void> {
  const i = process.argv.indexOf('--extractor');
  const files = i >= 0 ? process.argv[i + 1]!.split(',') : [join('.output', 'chrome-mv3', 'extract.js')];
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  const rows: string[] = [];
  for (const [file, words] of files.flatMap((f) => SIZES.map((w) => [f, w] as const))) {
    const extractor = readFileSync(file, 'utf8');
    const page = wholePage(words);
    const html = pageHtml('Whole page', page.text);
    const tab = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await tab.setContent(html);
    const runs: { ms: number; chars: number; kind: string; truncated: boolean; elements: number }[] = [];
    for (let i = 0; i < 3; i++) {
      runs.push(
        await tab.evaluate((src) => {
          const t = performance.now();
          (0, eval)(src);
          const ms = performance.now() - t;
          const r = (globalThis as unknown as { extract: { text: string; kind: string; truncated: boolean } }).extract;
          return {
            ms,
            chars: r.text.length,
            kind: r.kind,
            truncated: r.truncated,
            elements: document.querySelectorAll('*').length,
          };
        }, extractor),
      );
    }
    await tab.close();
    const sorted = [...runs].sort((a, b) => a.ms - b.ms);
    const r = sorted[1]!;
    rows.push(
      `| ${file} | ${page.words.toLocaleString('en-US')} | ${r.elements.toLocaleString('en-US')} | ${r.kind} | ${r.chars.toLocaleString('en-US')} | ${r.truncated} | ${Math.round(r.ms)} ms (${sorted.map((x) => Math.round(x.ms)).join(', ')}) |`,
    );
  }
  await browser.close();
  process.stdout.write(
    [
      '| extractor | words | elements | path | characters out | truncated | extraction in the page, median (runs) |',
      '|---|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
}

void main();
