/**
 * The release build's code through what a user does (docs/security.md, "Test hooks and the release build"): no test
 * hooks exist in it, so this drives it only through its pages and the fixture hub set as the model mirror. It is the
 * release code pinning the fixture weights the local hub serves (SIDETALK_BUILD=release-fixture-weights,
 * tests/e2e/fixture-build.ts): a release build proper refuses a fixture manifest (release-build.e2e.ts). A new user's
 * first run (welcome, download, microphone, spoken greeting), then one spoken question answered out loud.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Reply } from '../../core/protocol';
import { makeSpeechWav } from '../fixtures/audio/make-wav';
import { startFixtureHub, type FixtureHub } from './fixture-hub';
import { launchExtension, poll, request, sendFromPage, type ExtensionSession } from './harness';
import { openPanelOnFixtures, rawSeen } from './onboarding-shared';

let session: ExtensionSession;
let fixtures: FixtureHub;
let panel: Page;

const step = () => panel.getByTestId('onboarding').getAttribute('data-step');
const waitForStep = (name: string, timeoutMs = 60_000) => poll(step, (s) => s === name, timeoutMs, 100);
/** Every engine state the panel showed, in order (recorded in the page: the release build has no timeline probe). */
const states = () => panel.evaluate(() => (window as unknown as { __states?: string[] }).__states ?? []);

beforeAll(async () => {
  fixtures = await startFixtureHub(() => ({}), { build: 'release-fixture-weights' });
  const wav = makeSpeechWav('release-mic', 'What is the capital of France?', 1.5, 20);
  session = await launchExtension({
    extensionDir: fixtures.extensionDir,
    micWav: wav,
    onboarding: 'fresh',
    autoGrantMedia: false,
  });
  await session.context.addInitScript(() => {
    const w = window as unknown as { __states: string[] };
    w.__states = [];
    const record = () => {
      const s = document.querySelector('main.panel')?.getAttribute('data-state');
      if (s && w.__states.at(-1) !== s) w.__states.push(s);
    };
    new MutationObserver(record).observe(document, { subtree: true, attributes: true, childList: true });
  });
  panel = await openPanelOnFixtures(session, fixtures.hub.url);
});

afterAll(async () => {
  await session?.close();
  await fixtures?.close();
});

describe('the release build, driven as a user drives it', () => {
  it('is the release code: the test hooks are unknown requests', async () => {
    const manifest = await session.worker.evaluate(() => chrome.runtime.getManifest().name);
    expect(manifest).toBe('Sidetalk (fixture weights: tests only)');
    for (const type of ['conversation/marks', 'debug/llm-script', 'mic/probe'])
      expect(await sendFromPage<Reply<unknown>>(panel, request(type, 'offscreen', {})), type).toMatchObject({
        ok: false,
        error: { code: 'unknown_type' },
      });
  });

  it('first run: the welcome downloads the default set, asks for the microphone, and the avatar says hello', async () => {
    await waitForStep('welcome', 30_000);
    await panel.getByTestId('onboarding-start').click();
    await waitForStep('microphone', 180_000);
    const opened = session.context.waitForEvent('page');
    await panel.getByTestId('onboarding-allow-mic').click();
    const permissions = await opened;
    await permissions.waitForLoadState();
    // What the user's "Allow" in Chrome's prompt does (first-run.e2e.ts).
    const cdp = await session.context.newCDPSession(panel);
    await cdp.send('Browser.setPermission', {
      permission: { name: 'microphone' },
      setting: 'granted',
      origin: `chrome-extension://${session.extensionId}`,
    });
    await permissions.getByTestId('grant-mic').click();
    await poll(
      () => permissions.getByTestId('grant-mic').innerText(),
      (t) => /allowed/.test(t),
    );
    await permissions.close();
    await waitForStep('finished', 180_000);
    // The greeting was spoken: the engine said it was speaking.
    expect(await states()).toContain('speaking');
    await panel.getByTestId('onboarding-finish').click();
    await poll(
      () => panel.locator('.line.assistant').allInnerTexts(),
      (lines) => lines.some((t) => t.includes("Hi, I'm Sidetalk")),
    );
  }, 420_000);

  it('answers one spoken question out loud', async () => {
    const assistantBefore = await panel.locator('.line.assistant').count();
    const spokenBefore = (await states()).length;
    await panel.getByTestId('orb').click();
    await poll(
      () => panel.getByTestId('orb').getAttribute('data-listening'),
      (v) => v === 'yes',
      120_000,
      100,
    );
    await poll(
      () => panel.locator('.line.user').count(),
      (n) => n >= 1,
      120_000,
      250,
    );
    await poll(
      () => panel.locator('.line.assistant').count(),
      (n) => n > assistantBefore,
      180_000,
      250,
    );
    // The reply was spoken after the question (thinking, then speaking).
    await poll(
      async () => (await states()).slice(spokenBefore),
      (s) => s.includes('speaking'),
      120_000,
      250,
    );
    await panel.getByTestId('orb').click();
    await poll(
      () => sendFromPage<Reply<{ handsFree: boolean }>>(panel, request('settings/get', 'background')),
      (r) => r.ok && !r.data.handsFree,
    );
  }, 420_000);

  it('showed no raw error text and logged no console errors', async () => {
    expect(await rawSeen(panel)).toEqual([]);
    expect(session.errors).toEqual([]);
  });
});
