import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Reply } from '../../core/protocol';
import { MODEL_BUNDLES, TTS_GPU_BUNDLE } from '../../models/registry';
import { startFixtureHub, type FixtureHub } from './fixture-hub';
import {
  downloadModels,
  launchExtension,
  poll,
  request,
  screenshotColours,
  sendFromPage,
  type ExtensionSession,
} from './harness';

let session: ExtensionSession;
let fixtures: FixtureHub;
let panel: Page;

/** Live video tracks of the offscreen document, read through the mic status plus a probe of its media devices. */
const cameraLive = () =>
  sendFromPage<Reply<{ camera?: { live: number } }>>(panel, request('offscreen/status', 'offscreen')).then((r) =>
    r.ok ? (r.data.camera?.live ?? 0) : -1,
  );

beforeAll(async () => {
  fixtures = await startFixtureHub();
  session = await launchExtension({ extensionDir: fixtures.extensionDir }); // Chromium's fake camera: a moving 640×480 test pattern
  panel = await session.openPage('sidepanel.html');
  await panel.setViewportSize({ width: 420, height: 860 });
  await downloadModels(
    panel,
    fixtures.hub.url,
    MODEL_BUNDLES.filter((b) => b.id !== TTS_GPU_BUNDLE.id).map((b) => b.id),
  ); // the GPU voice has its own e2e (tts-gpu)
});

afterAll(async () => {
  await session?.close();
  await fixtures?.close();
});

describe('webcam vision in the built extension', () => {
  it('the popup toggle starts the camera, detections reach the picture-in-picture, and off releases the camera', async () => {
    const popup = await session.openPage('popup.html');
    await popup.getByTestId('vision-toggle').click();
    // Frames flow: the PiP shows the analysed picture with the fixture detector's boxes.
    await panel.getByTestId('camera-pip-image').waitFor({ state: 'visible', timeout: 60_000 });
    expect(await cameraLive()).toBe(1);
    const alt = await poll(
      () => panel.getByTestId('camera-pip-image').getAttribute('alt'),
      (a) => Boolean(a && a.length > 0),
    );
    expect(alt).toMatch(/\w/);
    // Detections are smoothed over a few frames before an object is shown (no flicker), so boxes come a bit later.
    await poll(
      () => panel.locator('.camera-pip-box').count(),
      (n) => n > 0,
      45_000,
      250,
    );
    expect(await screenshotColours(panel, 'vision-pip')).toBeGreaterThan(50);

    // "What do you see?" is answered from the smoothed detections, not by the language model.
    await panel.getByTestId('composer').fill('what do you see?');
    await panel.getByRole('button', { name: 'Send' }).click();
    const answer = await poll(
      () =>
        panel
          .locator('.line.assistant')
          .last()
          .innerText()
          .catch(() => ''),
      (t) => t.length > 0,
      60_000,
    );
    expect(answer).toMatch(/cup/i);

    await popup.getByTestId('vision-toggle').click();
    await poll(cameraLive, (n) => n === 0);
    await panel.getByTestId('camera-pip').waitFor({ state: 'detached' });
    await popup.close();
  });

  it('logged no console errors', () => {
    expect(session.errors).toEqual([]);
  });
});
