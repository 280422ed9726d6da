/**
 * Who may start the microphone and the camera, in the built extension (docs/security.md, "Microphone and camera",
 * "Trust boundaries"): only the open side panel or the popup, in this browser session. Each context checks the sender
 * of every message (core/protocol/senders.ts), and only while a side panel is open; here Chrome itself says who sent
 * what. Then the browser is closed and started again on the same profile: what the user had switched on is off.
 * The same checks run on the test build (privacy.e2e.ts) and on the release build users install
 * (privacy-release.e2e.ts), which has no test hooks: they use none.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Reply, Settings } from '../../core/protocol';
import { contextTypes, launchExtension, poll, request, sendFromPage, waitForOffscreen, type ExtensionSession } from './harness';

const ask = (page: Page, message: unknown) => sendFromPage<Reply<unknown>>(page, message);
const forbidden = { ok: false, error: { code: 'forbidden' } };

async function settingsOf(page: Page): Promise<Settings> {
  const r = await sendFromPage<Reply<Settings>>(page, request('settings/get', 'background'));
  if (!r.ok) throw new Error(r.error.message);
  return r.data;
}

/** The privacy checks on one build (`extensionDir`): the test build or the release build. */
export function privacyChecks(build: string, extensionDir: string): void {
  const profileDir = mkdtempSync(join(tmpdir(), 'sidetalk-privacy-'));
  let session: ExtensionSession | undefined;

  afterAll(async () => {
    await session?.close();
    rmSync(profileDir, { recursive: true, force: true });
  });

  describe(`the microphone and the camera start only from the open side panel or the popup (${build} build)`, () => {
    it('another extension page cannot switch them on; the popup can while a panel is open, and not without one', async () => {
      session = await launchExtension({ profileDir, extensionDir });
      const permissions = await session.openPage('permissions.html');
      for (const patch of [{ handsFree: true }, { visionEnabled: true }]) {
        expect(await ask(permissions, request('settings/set', 'background', { patch }))).toMatchObject(forbidden);
      }
      expect(await ask(permissions, request('listening/toggle', 'background'))).toMatchObject(forbidden);
      // Switching off, or anything else, is anyone's to ask.
      expect(await ask(permissions, request('settings/set', 'background', { patch: { handsFree: false } }))).toMatchObject({
        ok: true,
      });
      expect(await settingsOf(permissions)).toMatchObject({ handsFree: false, visionEnabled: false });

      const popup = await session.openPage('popup.html');
      const panel = await session.openPage('sidepanel.html');
      const on = await ask(popup, request('settings/set', 'background', { patch: { visionEnabled: true } }));
      expect(on).toMatchObject({ ok: true, data: { visionEnabled: true } });
      await ask(popup, request('settings/set', 'background', { patch: { visionEnabled: false } }));
      // With no side panel open, the popup cannot turn either on.
      await panel.close();
      for (const patch of [{ handsFree: true }, { visionEnabled: true }]) {
        expect(await ask(popup, request('settings/set', 'background', { patch }))).toMatchObject({
          ok: false,
          error: { message: /Open the Sidetalk side panel/ },
        });
      }
      expect(await ask(popup, request('listening/toggle', 'background'))).toMatchObject({ ok: false });
      expect(await settingsOf(popup)).toMatchObject({ handsFree: false, visionEnabled: false });
      await permissions.close();
      await popup.close();
    });

    it('the engine opens them only when the background asks, and takes forwarded requests only from it', async () => {
      const panel = await session!.openPage('sidepanel.html');
      await waitForOffscreen(session!, panel);
      expect(await ask(panel, request('conversation/start', 'offscreen', { baseUrl: null }))).toMatchObject(forbidden);
      expect(await ask(panel, request('vision/set', 'offscreen', { on: true, baseUrl: null }))).toMatchObject(forbidden);
      // A page forging the background's forwarded hop of a relayed request.
      const forged = {
        ...request('conversation/ptt', 'offscreen', { down: true }),
        relayedBy: 'background',
        context: { baseUrl: null, models: { asr: 'moonshine', device: 'auto', language: 'en' } },
      };
      expect(await ask(panel, forged)).toMatchObject(forbidden);
      const status = await sendFromPage<Reply<{ mic: { capturing: boolean }; camera: { live: number } }>>(
        panel,
        request('offscreen/status', 'offscreen'),
      );
      expect(status).toMatchObject({ ok: true, data: { mic: { capturing: false }, camera: { live: 0 } } });
      await panel.close();
    });

    it('switched on in one browser session, they are off in the next one', async () => {
      // Vision stays on without its model (hands-free would turn itself off again: no voice models in this profile).
      // The popup turns it on while a side panel is open, which stays open until the browser closes.
      await session!.openPage('sidepanel.html');
      const popup = await session!.openPage('popup.html');
      const toggle = popup.getByTestId('vision-toggle');
      await poll(
        () => toggle.isEnabled(),
        (on) => on,
      );
      await toggle.check();
      await poll(
        () => settingsOf(popup),
        (s) => s.visionEnabled,
      );
      await session!.close();

      // The same profile, a new browser process: a new session.
      session = await launchExtension({ profileDir, extensionDir });
      const next = await session.openPage('popup.html');
      await next.getByTestId('vision-toggle').waitFor({ state: 'visible' });
      expect(await settingsOf(next)).toMatchObject({ handsFree: false, visionEnabled: false });
      // The settings arrived (and no panel is open, so neither switch can be turned on from here).
      await next.getByTestId('needs-panel').waitFor({ state: 'visible' });
      expect(await next.getByTestId('handsfree-toggle').isChecked()).toBe(false);
      expect(await next.getByTestId('vision-toggle').isChecked()).toBe(false);
      const stored = await session.worker.evaluate(() => chrome.storage.local.get('settings'));
      expect((stored as { settings: Settings }).settings).toMatchObject({ handsFree: false, visionEnabled: false });
      // The popup opens no engine; nothing started one at browser start either.
      expect(await contextTypes(session.worker)).not.toContain('OFFSCREEN_DOCUMENT');
    });
  });
}
