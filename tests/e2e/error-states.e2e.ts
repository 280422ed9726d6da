/**
 * States that tell the truth (issue #19, docs/onboarding.md): on a profile without models, the status line says so
 * and offers the download; a typed question gets one plain sentence and the action, never the request names and
 * protocol text behind it; the orb never claims to listen when listening could not start. A failed download in the
 * welcome says why in words. With the models there: "Running on CPU — slower", and a blocked microphone. Every
 * state is photographed in light and dark (tests/artifacts/).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { manifestBundles } from '../../core/weights/manifest';
import { startFixtureHub, type FixtureHub } from './fixture-hub';
import { launchExtension, poll, request, sendFromPage, type ExtensionSession } from './harness';
import { openPanelOnFixtures, orbLabels, rawSeen, shootBoth } from './onboarding-shared';

let session: ExtensionSession;
let fixtures: FixtureHub;
let panel: Page;

const statusText = () => panel.getByTestId('engine-state').innerText();
const waitForStatus = (text: string) => poll(statusText, (t) => t === text, 30_000, 50);
const step = () => panel.getByTestId('onboarding').getAttribute('data-step');

beforeAll(async () => {
  fixtures = await startFixtureHub();
  // A user who closed the welcome without downloading: the conversation view, nothing downloaded.
  session = await launchExtension({ extensionDir: fixtures.extensionDir });
  panel = await openPanelOnFixtures(session, fixtures.hub.url);
});

afterAll(async () => {
  await session?.close();
  await fixtures?.close();
});

describe('before the models are downloaded', () => {
  it('the status line says "Voice models not downloaded" and offers the download', async () => {
    await waitForStatus('Voice models not downloaded');
    expect(await panel.getByTestId('status-action').innerText()).toBe('Download');
    await shootBoth(panel, 'state-models-missing');
  });

  it('a typed question gets one plain sentence and the download action, nothing raw', async () => {
    await panel.getByTestId('composer').fill('What is 12 times 12?');
    await panel.getByTestId('composer').press('Enter');
    const notice = panel.getByTestId('conversation-notice');
    await notice.waitFor({ state: 'visible', timeout: 30_000 });
    expect(await notice.locator('p').innerText()).toBe('The voice models are not downloaded yet.');
    expect(await notice.getByTestId('notice-action').innerText()).toBe('Download the models');
    expect(await panel.getByTestId('composer').inputValue()).toBe('What is 12 times 12?');
    expect(await rawSeen(panel)).toEqual([]);
    await shootBoth(panel, 'error-typed-without-models');
  });

  it('clicking the orb does not claim to listen when listening cannot start; hands-free goes back off', async () => {
    await panel.getByTestId('conversation-notice').getByRole('button', { name: 'Dismiss' }).click();
    await panel.getByTestId('orb').click();
    await panel.getByTestId('conversation-notice').waitFor({ state: 'visible', timeout: 30_000 });
    expect(await panel.getByTestId('conversation-notice').locator('p').innerText()).toBe(
      'The voice models are not downloaded yet.',
    );
    await poll(
      () => panel.getByTestId('orb').getAttribute('aria-pressed'),
      (v) => v === 'false',
    );
    // Every label the orb had since the page opened: never "Stop listening".
    const labels = await orbLabels(panel);
    expect(labels).toContain('Starting to listen… (click to cancel)');
    expect(labels).not.toContain('Stop listening');
    expect(await panel.getByTestId('orb').getAttribute('data-listening')).toBe('no');
    await shootBoth(panel, 'error-listen-without-models');
  });

  it('a download that fails in the welcome says why in words and offers to resume', async () => {
    // The status line's action opens the welcome.
    await panel.getByTestId('status-action').click();
    await poll(step, (s) => s === 'welcome');
    // A required file of the set's last bundle: the weights service keeps the failure of the bundle it did last.
    const last = manifestBundles(fixtures.manifest)
      .filter((b) => b.default)
      .at(-1)!;
    const file = fixtures.file(last.id, last.files.find((f) => !f.optional)!.role);
    fixtures.hub.setFault(file.key, { kind: 'status', status: 404 });
    try {
      await panel.getByTestId('onboarding-start').click();
      const error = panel.getByTestId('onboarding-error');
      await error.waitFor({ state: 'visible', timeout: 60_000 });
      expect(await error.innerText()).toBe('A model file was not found on the server. Check the mirror URL or try again later.');
      expect(await panel.getByTestId('onboarding-resume').isVisible()).toBe(true);
      await shootBoth(panel, 'onboarding-download-failed');
    } finally {
      fixtures.hub.setFault(file.key, null);
    }
    await panel.getByTestId('onboarding-resume').click();
    await poll(step, (s) => s === 'greeting' || s === 'finished', 120_000, 250);
  });
});

describe('with the models downloaded', () => {
  it('the status line says Ready when nothing is missing, and that the models run on the CPU when they do', async () => {
    await poll(step, (s) => s === 'finished', 120_000, 250);
    await panel.getByTestId('onboarding-finish').click();
    await sendFromPage(panel, request('settings/set', 'background', { patch: { computeBackend: 'auto' } }));
    await waitForStatus('Ready');
    expect(await panel.getByTestId('status-action').count()).toBe(0);
    await sendFromPage(panel, request('settings/set', 'background', { patch: { computeBackend: 'wasm' } }));
    await waitForStatus('Running on CPU — slower');
    expect(await panel.getByTestId('status-action').innerText()).toBe('Settings');
    await shootBoth(panel, 'state-cpu-only');
  });

  it('a blocked microphone is named on the status line and in the welcome, with the way to fix it', async () => {
    const cdp = await session.context.newCDPSession(panel);
    await cdp.send('Browser.setPermission', {
      permission: { name: 'microphone' },
      setting: 'denied',
      origin: `chrome-extension://${session.extensionId}`,
    });
    await waitForStatus('Microphone blocked');
    expect(await panel.getByTestId('status-action').innerText()).toBe('How to allow it');
    expect(await panel.getByTestId('microphone-notice').innerText()).toMatch(/blocked/);
    expect(await panel.getByTestId('orb').isDisabled()).toBe(true);
    await shootBoth(panel, 'state-microphone-blocked');
    await panel.getByTestId('settings-button').click();
    await panel.getByTestId('reopen-onboarding').click();
    await poll(step, (s) => s === 'welcome');
    await panel.getByTestId('onboarding-start').click();
    await poll(step, (s) => s === 'microphone');
    expect(await panel.getByTestId('onboarding').innerText()).toMatch(/microphone is blocked/);
    await shootBoth(panel, 'onboarding-microphone-blocked');
    await panel.getByTestId('onboarding-type-instead').click();
    await poll(step, (s) => s === 'finished', 120_000, 250);
    await panel.getByTestId('onboarding-finish').click();
  });

  it('showed no raw error text in the DOM, and logged no console errors', async () => {
    expect(await rawSeen(panel)).toEqual([]);
    expect(session.errors).toEqual([]);
  });
});
