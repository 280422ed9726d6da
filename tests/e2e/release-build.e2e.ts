/**
 * The release build (`npm run build:release`, SIDETALK_RELEASE=1) has none of the test hooks: no debug panel, no fault
 * injection, no probes, no scripted model stand-in, no tool endpoint override (docs/security.md, "Test hooks and the
 * release build"). Both builds are made here from the same sources into their own folders; every marker must be in
 * the test build (so a marker that no longer names anything fails here, not silently) and absent from the release
 * build. Then the release build runs in Chromium and refuses the hooks as unknown requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Reply } from '../../core/protocol';
import { launchExtension, poll, request, sendFromPage, type ExtensionSession } from './harness';

/** Strings only the test hooks contain: request names, page hooks, UI of the debug panel, the endpoint override. */
const MARKERS = [
  'debug/fault',
  'debug/llm-script',
  'debug/asr-script',
  'debug/llm-log',
  'debug/tunables-live',
  'debug/gpu-stats',
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

function build(name: string, release: boolean): string {
  const outDir = join(root, name);
  execFileSync(resolve('node_modules/.bin/wxt'), ['build'], {
    env: { ...process.env, SIDETALK_OUT_DIR: outDir, SIDETALK_RELEASE: release ? '1' : '', SIDETALK_WEIGHTS_MANIFEST: '' },
    stdio: 'pipe',
  });
  return join(outDir, 'chrome-mv3');
}

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

let testBuild = '';
let releaseBuild = '';

beforeAll(() => {
  testBuild = build('test', false);
  releaseBuild = build('release', true);
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
