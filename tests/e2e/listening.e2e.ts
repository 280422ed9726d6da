/**
 * Listening ends with the panel (docs/security.md, "Microphone and camera"), in the built extension with fixture
 * models: closing the last side panel while hands-free and vision are on stops the microphone and the camera, as the
 * offscreen document itself reports, and clears the toolbar badge that said they were live; the popup with no panel
 * open cannot turn either on; a push-to-talk hold ends when the panel's window loses focus, and the offscreen
 * document ends a hold nobody releases at `listening.pttMaxHoldMs`; hands-free that could not start leaves push-to-talk
 * working. Each test closes the panels it opened (afterEach), so one that fails leaves nothing listening for the next.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { OffscreenStatus, Reply, Settings } from '../../core/protocol';
import { MODEL_BUNDLES, TTS_GPU_BUNDLE } from '../../models/registry';
import { startFixtureHub, type FixtureHub } from './fixture-hub';
import { downloadModels, launchExtension, poll, request, sendFromPage, waitForOffscreen, type ExtensionSession } from './harness';

let session: ExtensionSession;
let fixtures: FixtureHub;
/** A page that is not a side panel (the popup), to watch the engine while no panel is open. */
let observer: Page;

type Capture = { mic: boolean; audioTracks: number; camera: number };
async function capture(page: Page): Promise<Capture | null> {
  const r = await sendFromPage<Reply<OffscreenStatus> | undefined>(page, request('offscreen/status', 'offscreen')).catch(
    () => undefined,
  );
  if (!r?.ok) return null;
  return { mic: r.data.mic.capturing, audioTracks: r.data.mic.live ?? 0, camera: r.data.camera?.live ?? 0 };
}
const nothingLive = (c: Capture | null) => c !== null && !c.mic && c.audioTracks === 0 && c.camera === 0;
const badge = () => session.worker.evaluate(() => chrome.action.getBadgeText({}));
async function settingsOf(page: Page): Promise<Settings> {
  const r = await sendFromPage<Reply<Settings>>(page, request('settings/get', 'background'));
  if (!r.ok) throw new Error(r.error.message);
  return r.data;
}

/** The side panels the running test opened. */
const panels: Page[] = [];
async function openPanel(): Promise<Page> {
  const panel = await session.openPage('sidepanel.html');
  panels.push(panel);
  await panel.setViewportSize({ width: 420, height: 860 });
  await waitForOffscreen(session, panel);
  return panel;
}

/**
 * What the user would have seen, for a wait that timed out: the switches, the panel's notice, the engine's mic error,
 * and how far the engine's models got.
 */
async function seen(panel: Page | undefined): Promise<string> {
  const settings = await settingsOf(observer).then(
    (s) => `handsFree ${s.handsFree}, visionEnabled ${s.visionEnabled}`,
    (e: Error) => e.message,
  );
  const notice =
    panel && !panel.isClosed()
      ? await panel
          .getByTestId('conversation-notice')
          .innerText({ timeout: 1_000 })
          .catch(() => 'none')
      : 'no panel';
  const r = await sendFromPage<Reply<OffscreenStatus> | undefined>(observer, request('offscreen/status', 'offscreen')).catch(
    () => undefined,
  );
  // Where the engine got to: a wait that timed out says whether the speech models' worker started and what it loaded.
  const speech = r?.ok ? JSON.stringify(r.data.speech ?? null) : 'no engine';
  const voice = r?.ok ? JSON.stringify(r.data.tts ?? null) : 'no engine';
  return `settings: ${settings}; panel notice: ${notice}; mic error: ${r?.ok ? (r.data.mic.error ?? 'none') : 'no engine'}; speech models: ${speech}; voice: ${voice}`;
}

/** Waits for the engine's own report of what it captures; a timeout says what the user saw meanwhile. */
async function waitForCapture(ok: (c: Capture | null) => boolean, timeoutMs: number, panel?: Page): Promise<Capture | null> {
  try {
    return await poll(() => capture(observer), ok, timeoutMs, 50);
  } catch (err) {
    throw new Error(`${(err as Error).message}; ${await seen(panel)}`);
  }
}

beforeAll(async () => {
  fixtures = await startFixtureHub();
  session = await launchExtension({ extensionDir: fixtures.extensionDir });
  const panel = await openPanel();
  // Everything but the GPU voice (its own e2e): the speech models for listening, the detector for the camera.
  await downloadModels(
    panel,
    fixtures.hub.url,
    MODEL_BUNDLES.filter((b) => b.id !== TTS_GPU_BUNDLE.id).map((b) => b.id),
  );
  // The CPU runtime: what is tested here is when capture starts and stops, not the software GPU's speed under load.
  await sendFromPage(panel, request('settings/set', 'background', { patch: { computeBackend: 'wasm' } }));
  await panel.close();
  panels.length = 0;
  observer = await session.openPage('popup.html');
});

// A test that failed with a panel open would leave listening on for the next one.
afterEach(async () => {
  for (const panel of panels.splice(0)) if (!panel.isClosed()) await panel.close();
});

afterAll(async () => {
  await session?.close();
  await fixtures?.close();
});

/** Holds Space for push-to-talk once the orb takes it, and waits for the microphone to be live. */
async function holdSpace(panel: Page): Promise<void> {
  await poll(
    () => panel.getByTestId('orb').isEnabled(),
    (on) => on,
  );
  await panel.locator('main').click({ position: { x: 5, y: 5 } }); // focus outside the text box
  await panel.keyboard.down('Space');
  await waitForCapture((c) => !!c?.mic, 150_000, panel);
}

describe('listening ends with the panel', () => {
  it('closing the last side panel stops hands-free and the camera within 1 s, and the badge clears', async () => {
    const panel = await openPanel();
    // The orb from the keyboard (Enter toggles hands-free like a click): a pointer click on a busy machine can last
    // past the push-to-talk hold threshold and become a short hold instead.
    await panel.getByTestId('orb').press('Enter');
    await poll(
      () => settingsOf(panel),
      (s) => s.handsFree,
    );
    const vision = observer.getByTestId('vision-toggle');
    await poll(
      () => vision.isEnabled(),
      (on) => on,
    );
    await vision.click();
    await poll(
      () => settingsOf(observer),
      (s) => s.visionEnabled,
    );
    await waitForCapture((c) => !!c && c.mic && c.camera > 0, 150_000, panel);
    expect(await poll(badge, (t) => t === 'ON')).toBe('ON');

    await panel.close();
    // What the offscreen document itself reports: no microphone, no audio track, no camera track.
    expect(nothingLive(await poll(() => capture(observer), nothingLive, 1_000, 50))).toBe(true);
    expect(await poll(badge, (t) => t === '', 1_000, 50)).toBe('');
    expect(await settingsOf(observer)).toMatchObject({ handsFree: false, visionEnabled: false });
  }, 240_000);

  it('the popup with no panel open cannot turn the microphone or the camera on', async () => {
    await observer.reload();
    await observer.getByTestId('needs-panel').waitFor({ state: 'visible' });
    expect(await observer.getByTestId('handsfree-toggle').isDisabled()).toBe(true);
    expect(await observer.getByTestId('vision-toggle').isDisabled()).toBe(true);
    // Asked directly, the background refuses too.
    for (const patch of [{ handsFree: true }, { visionEnabled: true }]) {
      const r = await sendFromPage<Reply<Settings>>(observer, request('settings/set', 'background', { patch }));
      expect(r).toMatchObject({ ok: false, error: { message: /Open the Sidetalk side panel/ } });
    }
    expect(await sendFromPage(observer, request('listening/toggle', 'background'))).toMatchObject({ ok: false });
    expect(await sendFromPage(observer, request('conversation/ptt', 'background', { down: true }))).toMatchObject({
      ok: false,
    });
    expect(await settingsOf(observer)).toMatchObject({ handsFree: false, visionEnabled: false });
    expect(nothingLive(await capture(observer))).toBe(true);
    expect(await badge()).toBe('');
  });

  it('a push-to-talk hold is released when the window loses focus', async () => {
    const panel = await openPanel();
    await poll(() => capture(panel), nothingLive);
    await holdSpace(panel);
    // The badge follows the capture through the background's status, a hop behind it on a busy machine.
    expect(await poll(badge, (t) => t === 'MIC')).toBe('MIC');
    // The window loses focus (another window took it): the key-up will never arrive here.
    await panel.evaluate(() => window.dispatchEvent(new Event('blur')));
    expect(nothingLive(await poll(() => capture(panel), nothingLive, 5_000, 50))).toBe(true);
    await poll(badge, (t) => t === '');
    await panel.keyboard.up('Space');
    await panel.close();
  }, 240_000);

  it('the offscreen document ends a hold nobody releases at listening.pttMaxHoldMs', async () => {
    const panel = await openPanel();
    await poll(() => capture(panel), nothingLive);
    // A first hold loads the speech models: the cap counts from the press, and a first load can outlast a short cap
    // (the microphone would then never open, and the test would pass or fail on the order the tests ran in).
    void sendFromPage(panel, request('conversation/ptt', 'background', { down: true })).catch(() => undefined);
    await waitForCapture((c) => !!c?.mic, 150_000, panel);
    await sendFromPage(panel, request('conversation/ptt', 'background', { down: false }));
    await waitForCapture(nothingLive, 10_000, panel);
    await sendFromPage(panel, request('tunables/set', 'background', { path: 'listening.pttMaxHoldMs', value: 3_000 }));
    // A down with no up, as from a panel that froze mid-hold: the panel's own hold is not involved.
    void sendFromPage(panel, request('conversation/ptt', 'background', { down: true })).catch(() => undefined);
    await waitForCapture((c) => !!c?.mic, 150_000, panel);
    expect(nothingLive(await poll(() => capture(panel), nothingLive, 10_000, 100))).toBe(true);
    await sendFromPage(panel, request('tunables/reset', 'background'));
    await panel.close();
  }, 240_000);

  it('hands-free that could not start leaves push-to-talk working', async () => {
    const panel = await openPanel();
    await poll(() => capture(panel), nothingLive);
    // A mirror that has none of the models: hands-free cannot start, and its switch goes back off.
    const mirror = (await settingsOf(panel)).mirrorBaseUrl;
    await sendFromPage(panel, request('settings/set', 'background', { patch: { mirrorBaseUrl: 'http://127.0.0.1:9' } }));
    await panel.getByTestId('orb').press('Enter');
    await panel.getByTestId('conversation-notice').waitFor({ state: 'visible', timeout: 60_000 });
    expect(await panel.getByTestId('conversation-notice').innerText()).toMatch(/not downloaded/);
    await poll(
      () => settingsOf(panel),
      (s) => !s.handsFree,
    );
    await sendFromPage(panel, request('settings/set', 'background', { patch: { mirrorBaseUrl: mirror } }));
    await holdSpace(panel);
    await panel.keyboard.up('Space');
    expect(nothingLive(await waitForCapture(nothingLive, 5_000, panel))).toBe(true);
  }, 240_000);
});
