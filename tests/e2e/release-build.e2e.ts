/**
 * The release build (`npm run build`, what the README tells users to load from .output/chrome-mv3) has none of the
 * test hooks: no debug panel, no fault injection, no probes, no scripted model stand-in, no tool endpoint override
 * (docs/security.md, "Test hooks and the release build"). `npm run test:e2e` makes both builds from the same sources
 * before this runs; every marker must be in the test build (`npm run build:test`, so a marker that no longer names
 * anything fails here, not silently) and absent from the release build. Then the release build runs in Chromium and
 * refuses the hooks as unknown requests, and a release build with a fixture weights manifest is refused outright.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Reply } from '../../core/protocol';
import {
  EXTENSION_DIR,
  launchExtension,
  poll,
  RELEASE_EXTENSION_DIR,
  request,
  sendFromPage,
  type ExtensionSession,
} from './harness';

/** Strings only the test hooks contain: request names, page hooks, UI of the debug panel, the endpoint override. */
const MARKERS = [
  'debug/fault',
  'debug/llm-script',
  'debug/asr-script',
  'debug/llm-log',
  'debug/played-reference',
  'debug/echo-recording',
  'debug/tunables-live',
  'debug/gpu-stats',
  'debug/llm-probe',
  'conversation/marks',
  'debug/turn-trace',
  'debug/gate-frames',
  'mic/probe',
  'vad/probe',
  '__sidetalkTunables',
  'sidetalkAvatar',
  'devToolEndpoints',
  'Fault injection',
  'The scripted model',
  'Show the debug panel',
  'tunables-panel',
];

const root = mkdtempSync(join(tmpdir(), 'sidetalk-builds-'));
let session: ExtensionSession | undefined;

/** Which markers appear in any text file of a build (scripts, pages, the manifest). */
function markersIn(dir: string): string[] {
  const found = new Set<string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(m?js|html|json|css)$/.test(entry.name)) continue;
    const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
    for (const m of MARKERS) if (text.includes(m)) found.add(m);
  }
  return MARKERS.filter((m) => found.has(m));
}

const testBuild = EXTENSION_DIR;
const releaseBuild = RELEASE_EXTENSION_DIR;

beforeAll(() => {
  for (const [dir, script] of [
    [testBuild, 'npm run build:test'],
    [releaseBuild, 'npm run build'],
  ] as const)
    if (!existsSync(join(dir, 'manifest.json'))) throw new Error(`No build at ${dir}: run "${script}" first.`);
});

afterAll(async () => {
  await session?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the release build', () => {
  it('the test build has every marker of the test hooks', () => {
    expect(markersIn(testBuild)).toEqual(MARKERS);
  });

  it('the release build has none of them', () => {
    expect(markersIn(releaseBuild)).toEqual([]);
  });

  it('the release build is the product: its name is Sidetalk and it pins models/manifest.json', () => {
    const manifest = JSON.parse(readFileSync(join(releaseBuild, 'manifest.json'), 'utf8')) as { name: string };
    expect(manifest.name).toBe('Sidetalk');
  });

  it('refuses a fixture weights manifest, with SIDETALK_BUILD unset or unknown (fails closed)', () => {
    const fixture = join(root, 'fixture-manifest.json');
    writeFileSync(fixture, readFileSync(resolve('models/manifest.json')));
    for (const kind of [undefined, '', 'release', 'tests', 'TEST']) {
      const env: Record<string, string | undefined> = {
        ...process.env,
        SIDETALK_WEIGHTS_MANIFEST: fixture,
        SIDETALK_OUT_DIR: join(root, 'refused'),
      };
      if (kind === undefined) delete env.SIDETALK_BUILD;
      else env.SIDETALK_BUILD = kind;
      const run = spawnSync(resolve('node_modules/.bin/wxt'), ['build'], { env, encoding: 'utf8' });
      expect(run.status, `SIDETALK_BUILD=${kind}`).not.toBe(0);
      expect(`${run.stdout}${run.stderr}`).toMatch(/refuses a fixture weights manifest/);
      expect(existsSync(join(root, 'refused', 'chrome-mv3', 'manifest.json'))).toBe(false);
    }
  });

  it('runs, and refuses the test hooks as requests it does not know', async () => {
    session = await launchExtension({ extensionDir: releaseBuild });
    const panel = await session.openPage('sidepanel.html');
    const ping = await poll(
      () => sendFromPage<Reply<unknown> | undefined>(panel, request('offscreen/ping', 'offscreen')).catch(() => undefined),
      (r) => r?.ok === true,
      20_000,
    );
    expect(ping?.ok).toBe(true);
    await sendFromPage(panel, request('settings/set', 'background', { patch: { debugPanel: true } }));
    for (const [type, payload] of [
      ['debug/fault', { fault: 'end-mic' }],
      ['mic/probe', { durationMs: 500 }],
      ['debug/llm-script', { rules: [] }],
      ['debug/asr-script', { text: 'Yeah.', forMs: 1000 }],
      ['conversation/marks', {}],
      ['debug/gate-frames', {}],
    ] as const) {
      const reply = await sendFromPage<Reply<unknown>>(panel, request(type, 'offscreen', payload));
      expect(reply, type).toMatchObject({ ok: false, error: { code: 'unknown_type' } });
    }
    await panel.getByTestId('settings-button').click();
    await panel.getByTestId('backend-select').waitFor({ state: 'visible' });
    expect(await panel.getByTestId('debug-toggle').count()).toBe(0);
    expect(await panel.getByTestId('tunables-panel').count()).toBe(0);
    expect(await panel.evaluate(() => '__sidetalkTunables' in globalThis)).toBe(false);
  });
});
