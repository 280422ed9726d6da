import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppStatus, MicProbeResult, Reply, Settings } from '../../core/protocol';
import { makeSpeechWav } from '../fixtures/audio/make-wav';
import { contextTypes, launchExtension, poll, screenshotColours, sendFromPage, type ExtensionSession } from './harness';

let session: ExtensionSession;

beforeAll(async () => {
  const wav = makeSpeechWav('hello-mic', 'Hello. This is a test of the microphone pipeline.');
  session = await launchExtension({ micWav: wav });
});

afterAll(async () => {
  await session?.close();
});

const request = (type: string, target: string, payload: unknown = {}) => ({ kind: 'request', type, target, payload });

describe('built extension in headless Chromium', () => {
  it('starts the service worker and writes default settings on install', async () => {
    expect(session.extensionId).toMatch(/^[a-p]{32}$/);
    const stored = await poll(
      () => session.worker.evaluate(() => chrome.storage.local.get('settings')),
      (s) => Boolean((s as { settings?: unknown }).settings),
    );
    expect((stored as { settings: Settings }).settings).toMatchObject({ handsFree: false, visionEnabled: false });
  });

  it('opening the side panel creates the offscreen document, which reports WebGPU and cross-origin isolation', async () => {
    const panel = await session.openPage('sidepanel.html');
    await poll(
      () => contextTypes(session.worker),
      (types) => types.includes('OFFSCREEN_DOCUMENT'),
    );
    const reply = await poll(
      () => sendFromPage<Reply<AppStatus>>(panel, request('status/get', 'background')),
      (r) => r.ok && r.data.offscreen !== null,
    );
    if (!reply.ok || !reply.data.offscreen) throw new Error('no status');
    const { gpu, crossOriginIsolated } = reply.data.offscreen;
    expect(gpu.available).toBe(true);
    expect(gpu.architecture).toBe('swiftshader');
    expect(crossOriginIsolated).toBe(true);
    await poll(
      () => panel.getByTestId('engine-status').innerText(),
      (t) => t.includes('WebGPU'),
    );
    await panel.close();
  });

  it('captures a non-silent microphone stream from the espeak-ng WAV in the offscreen document', async () => {
    const page = await session.openPage('popup.html');
    const reply = await sendFromPage<Reply<MicProbeResult>>(page, request('mic/probe', 'offscreen', { durationMs: 3000 }));
    if (!reply.ok) throw new Error(reply.error.message);
    expect(reply.data.sampleRate).toBe(16000);
    // 3 s of 32 ms frames; the WAV starts with 1 s of silence, then speech well above the noise floor.
    expect(reply.data.frames).toBeGreaterThan(60);
    expect(reply.data.peakRms).toBeGreaterThan(0.02);
    expect(reply.data.meanRms).toBeGreaterThan(0.005);
    await page.close();
  });

  it('re-creates the offscreen document after it is killed while a side panel is open', async () => {
    const panel = await session.openPage('sidepanel.html');
    await poll(
      () => contextTypes(session.worker),
      (types) => types.includes('OFFSCREEN_DOCUMENT'),
    );
    const before = await sendFromPage<Reply<{ startedAt: number }>>(panel, request('offscreen/ping', 'offscreen'));
    if (!before.ok) throw new Error(before.error.message);

    await session.worker.evaluate(() => chrome.offscreen.closeDocument());
    const after = await poll(
      () => sendFromPage<Reply<{ startedAt: number }> | undefined>(panel, request('offscreen/ping', 'offscreen')),
      (r) => Boolean(r?.ok && r.data.startedAt !== before.data.startedAt),
    );
    expect(after?.ok).toBe(true);
    const status = await poll(
      () => sendFromPage<Reply<AppStatus>>(panel, request('status/get', 'background')),
      (r) => r.ok && r.data.offscreenCreatedCount >= 2 && r.data.offscreen !== null,
    );
    expect(status.ok && status.data.offscreen?.gpu.available).toBe(true);
    await panel.close();
  });

  it('rejects unknown and malformed messages with typed errors and keeps every context alive', async () => {
    const page = await session.openPage('popup.html');
    const unknown = await sendFromPage<Reply<unknown>>(page, request('nope/never', 'background'));
    expect(unknown).toMatchObject({ ok: false, error: { code: 'unknown_type' } });
    const bad = await sendFromPage<Reply<unknown>>(page, request('settings/set', 'background', { patch: { handsFree: 'yes' } }));
    expect(bad).toMatchObject({ ok: false, error: { code: 'malformed' } });
    expect(bad.ok === false && bad.error.message).toContain('handsFree');
    const badProbe = await sendFromPage<Reply<unknown>>(page, request('mic/probe', 'offscreen', { durationMs: -5 }));
    expect(badProbe).toMatchObject({ ok: false, error: { code: 'malformed' } });
    const ping = await sendFromPage<Reply<unknown>>(page, request('offscreen/ping', 'offscreen'));
    expect(ping.ok).toBe(true);
    await page.close();
  });

  it('renders the side panel and the popup (non-blank screenshots saved as artifacts)', async () => {
    const panel = await session.openPage('sidepanel.html');
    await panel.setViewportSize({ width: 400, height: 720 });
    await panel.getByRole('heading', { name: 'Sidetalk' }).waitFor({ state: 'visible' });
    await panel.getByTestId('transcript').waitFor({ state: 'visible' });
    expect(await screenshotColours(panel, 'sidepanel')).toBeGreaterThan(20);
    const popup = await session.openPage('popup.html');
    await popup.setViewportSize({ width: 360, height: 420 });
    await popup.getByTestId('vision-toggle').waitFor({ state: 'visible' });
    expect(await screenshotColours(popup, 'popup')).toBeGreaterThan(20);
    await panel.close();
    await popup.close();
  });

  it('round-trips the popup vision toggle through the background to session storage and back', async () => {
    // The popup turns vision on only while a side panel is open (core/lifecycle/listening-lease.ts).
    const panel = await session.openPage('sidepanel.html');
    const popup = await session.openPage('popup.html');
    const toggle = popup.getByTestId('vision-toggle');
    await poll(
      () => toggle.isEnabled(),
      (on) => on,
    );
    expect(await toggle.isChecked()).toBe(false);
    await toggle.click();
    // Vision is this browser session's switch: session storage, never the settings that outlive it.
    await poll(
      () => session.worker.evaluate(() => chrome.storage.session.get('media')),
      (s) => (s as { media?: { visionEnabled?: boolean } }).media?.visionEnabled === true,
    );
    const persisted = await session.worker.evaluate(() => chrome.storage.local.get('settings'));
    expect((persisted as { settings: Settings }).settings.visionEnabled).toBe(false);
    await popup.reload();
    await poll(
      () => popup.getByTestId('vision-toggle').isChecked(),
      (on) => on,
    );
    await popup.getByTestId('vision-toggle').click();
    await poll(
      () => session.worker.evaluate(() => chrome.storage.session.get('media')),
      (s) => (s as { media?: { visionEnabled?: boolean } }).media?.visionEnabled === false,
    );
    await popup.close();
    await panel.close();
  });

  it('opens the real side panel from the popup button (a user gesture)', async () => {
    const popup = await session.openPage('popup.html');
    await popup.getByTestId('open-panel').click();
    const types = await poll(
      () => contextTypes(session.worker),
      (t) => t.includes('SIDE_PANEL'),
    );
    expect(types).toContain('SIDE_PANEL');
  });

  it('logged no console errors in any extension page or the service worker', () => {
    expect(session.errors).toEqual([]);
  });
});
