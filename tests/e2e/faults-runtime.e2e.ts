/**
 * Faults of the browser itself, in the built extension: the service worker stopped mid-download, the GPU device lost
 * while the model works, the microphone's access revoked mid-session and the camera unplugged while vision is on.
 * Chrome stops an idle MV3 worker at will; the others are injected where Chrome would report them (the device's
 * `destroy()` fires the same `lost` promise as a driver reset; a revoked or unplugged device ends its track with an
 * `ended` event), through `debug/fault`, which the offscreen refuses unless the debug panel is on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CDPSession, Page } from 'playwright-core';
import type { OffscreenStatus, Reply, Settings } from '../../core/protocol';
import type { WeightsSnapshot } from '../../core/weights';
import { ASR_BUNDLES, LLM_BUNDLE, TTS_BUNDLE } from '../../models/registry';
import { VISION_BUNDLE } from '../../models/vision/detector-spec';
import { makeSpeechWav } from '../fixtures/audio/make-wav';
import { startFixtureHub, transfers, type FixtureHub } from './fixture-hub';
import { downloadModels, launchExtension, poll, request, sendFromPage, type ExtensionSession } from './harness';

let session: ExtensionSession;
let fixtures: FixtureHub;
let panel: Page;

const modelsState = () => sendFromPage<Reply<WeightsSnapshot | null>>(panel, request('weights/state', 'background'));
const bundleOf = (r: Reply<WeightsSnapshot | null>, id: string) => (r.ok ? r.data?.bundles.find((b) => b.id === id) : undefined);
const fault = (name: 'lose-gpu' | 'end-mic' | 'end-camera') =>
  sendFromPage<Reply<unknown>>(panel, request('debug/fault', 'offscreen', { fault: name }));
const settings = async () => {
  const r = await sendFromPage<Reply<Settings>>(panel, request('settings/get', 'background'));
  if (!r.ok) throw new Error('no settings');
  return r.data;
};
const setSettings = (patch: Partial<Settings>) => sendFromPage(panel, request('settings/set', 'background', { patch }));
const offscreenStatus = async () => {
  const r = await sendFromPage<Reply<OffscreenStatus> | undefined>(panel, request('offscreen/status', 'offscreen'));
  return r?.ok ? r.data : null;
};
const notices = () => panel.locator('[data-testid="conversation-notice"]').allInnerTexts();

async function say(text: string): Promise<void> {
  await panel.getByTestId('composer').fill(text);
  await panel.getByRole('button', { name: 'Send' }).click();
}

async function assistantLine(before: number, ok: (t: string) => boolean, timeoutMs = 120_000): Promise<string> {
  const lines = await poll(
    () => panel.locator('.line.assistant').allInnerTexts(),
    (all) => all.slice(before).some(ok),
    timeoutMs,
    200,
  );
  return lines.slice(before).find(ok)!;
}

/** Stops the extension's service worker the way Chrome does when it is idle (DevTools protocol, ServiceWorker domain). */
async function stopServiceWorker(cdp: CDPSession, extensionId: string): Promise<void> {
  const versions: Array<{ versionId: string; scriptURL: string; runningStatus: string }> = [];
  cdp.on('ServiceWorker.workerVersionUpdated', (e: { versions: typeof versions }) => versions.push(...e.versions));
  await cdp.send('ServiceWorker.enable');
  const running = await poll(
    async () =>
      versions.filter((v) => v.scriptURL.startsWith(`chrome-extension://${extensionId}/`) && v.runningStatus === 'running'),
    (v) => v.length > 0,
    10_000,
  );
  for (const v of running) await cdp.send('ServiceWorker.stopWorker', { versionId: v.versionId });
}

beforeAll(async () => {
  fixtures = await startFixtureHub();
  const wav = makeSpeechWav('faults-runtime-mic', 'Hello there.', 1, 30);
  session = await launchExtension({ extensionDir: fixtures.extensionDir, micWav: wav });
  panel = await session.openPage('sidepanel.html');
  await panel.setViewportSize({ width: 420, height: 860 });
  await setSettings({ mirrorBaseUrl: fixtures.hub.url });
});

afterAll(async () => {
  await session?.close();
  await fixtures?.close();
});

describe('browser faults in the built extension', () => {
  it('the service worker is stopped mid-download: the download goes on (or resumes by byte range) and completes intact', async () => {
    // The largest file of the voice bundle (the preset voices, a few MB), slowed so the stop lands mid-file.
    const bundle = TTS_BUNDLE;
    const files = bundle.files.map((f) => fixtures.file(bundle.id, f.role));
    const big = files.sort((a, b) => b.size - a.size)[0]!;
    const key = big.key;
    fixtures.hub.setFault(key, { kind: 'slow', delayMs: 50, chunkBytes: Math.ceil(big.size / 80) });
    const before = fixtures.hub.log.length;
    try {
      await sendFromPage(panel, request('weights/download', 'background', { bundleIds: [bundle.id] }));
      // The big file has started streaming (~4 s in all): stop the worker a second into it.
      await poll(
        async () => fixtures.hub.log.slice(before).some((e) => e.path.endsWith(`/${big.path}`)),
        (v) => v,
        30_000,
        50,
      );
      await new Promise((r) => setTimeout(r, 1000));
      expect(bundleOf(await modelsState(), bundle.id)?.status).not.toBe('complete');
      await session.worker.evaluate(() => ((globalThis as unknown as { __beforeStop: boolean }).__beforeStop = true));
      const cdp = await session.context.newCDPSession(panel);
      await stopServiceWorker(cdp, session.extensionId);
      await cdp.detach();
      // Anything that talks to the background wakes it again; the panel's own polling does, like a user would.
      await poll(modelsState, (r) => bundleOf(r, bundle.id)?.status === 'complete', 120_000, 250);
    } finally {
      fixtures.hub.setFault(key, null);
    }
    const gets = transfers(fixtures.hub.log.slice(before), big);
    // No byte fetched twice from 0: either one request, or later ones continue with a Range after what was stored.
    const fromZero = gets.filter((e) => e.status === 200);
    expect(fromZero.length, JSON.stringify(gets)).toBeLessThanOrEqual(1);
    for (const e of gets.filter((g) => g.status === 206)) expect(e.range).toMatch(/^bytes=[1-9]\d*-$/);
    const stored = await panel.evaluate(async (url) => {
      const res = await (await caches.open('transformers-cache')).match(url);
      return res ? (await res.arrayBuffer()).byteLength : -1;
    }, big.url);
    expect(stored).toBe(big.size);
    // It really was stopped: the worker answering now is a fresh one (module state gone).
    const current = await poll(
      async () => session.context.serviceWorkers().filter((w) => w.url().includes(session.extensionId)),
      (ws) => ws.length > 0,
    );
    const marker = await current
      .at(-1)!
      .evaluate(() => (globalThis as unknown as { __beforeStop?: boolean }).__beforeStop ?? false);
    expect(marker).toBe(false);
    expect(big.size).toBeGreaterThan(100_000);
  });

  it('fault injection is refused while the debug panel is off', async () => {
    const r = await fault('lose-gpu');
    expect(r).toMatchObject({ ok: false });
    expect(JSON.stringify(r)).toMatch(/debug panel/);
  });

  it('the GPU device is lost while the model works: a notice, the reply ends cleanly, the next turn answers on the CPU', async () => {
    await downloadModels(panel, fixtures.hub.url, [LLM_BUNDLE.id, ASR_BUNDLES.moonshine.id, TTS_BUNDLE.id]);
    await setSettings({ debugPanel: true });
    let before = await panel.locator('.line.assistant').count();
    await say('what is 6 times 7');
    await assistantLine(before, (t) => t.includes('42'));
    const gpu = await sendFromPage<Reply<{ backend: string; buffers: number }>>(panel, request('debug/gpu-stats', 'offscreen'));
    expect(gpu).toMatchObject({ ok: true, data: { backend: 'webgpu' } });
    expect(gpu.ok && gpu.data.buffers).toBeGreaterThan(0);

    before = await panel.locator('.line.assistant').count();
    await say('tell me a long story about the sea');
    await poll(
      () => panel.getByTestId('engine-state').innerText(),
      (t) => /think|speak/i.test(t),
      30_000,
      50,
    );
    expect(await fault('lose-gpu')).toMatchObject({ ok: true });
    await poll(notices, (n) => n.some((t) => /GPU stopped responding/.test(t)), 30_000, 200);
    const after = await poll(
      () => sendFromPage<Reply<{ backend: string }>>(panel, request('debug/gpu-stats', 'offscreen')),
      (r) => r.ok && r.data.backend === 'wasm',
      30_000,
      250,
    );
    expect(after.ok).toBe(true);
    await poll(
      () => panel.getByTestId('engine-state').innerText(),
      (t) => !/think|speak/i.test(t),
      120_000,
      250,
    );
    before = await panel.locator('.line.assistant').count();
    await say('what is 12 times 12');
    await assistantLine(before, (t) => t.includes('144'));
    await say('tell me about the moon');
    await assistantLine(before + 1, (t) => t.length > 10, 180_000);
  });

  it('after the GPU loss, vision works (the model worker restarted on the CPU); the camera is unplugged: the picture says so, it is released', async () => {
    await downloadModels(panel, fixtures.hub.url, [VISION_BUNDLE.id]);
    await setSettings({ debugPanel: true, visionEnabled: true });
    await poll(offscreenStatus, (s) => (s?.camera?.live ?? 0) > 0, 60_000, 250);
    expect(await fault('end-camera')).toMatchObject({ ok: true });
    await poll(
      () =>
        panel
          .locator('[data-testid="camera-pip"]')
          .innerText()
          .catch(() => ''),
      (t) => /disconnected/i.test(t),
      15_000,
      200,
    );
    await poll(offscreenStatus, (s) => (s?.camera?.live ?? 0) === 0, 15_000, 200);
    await setSettings({ visionEnabled: false });
  });

  it('the microphone access is revoked mid-session: listening turns off with a clear notice; typing still works', async () => {
    await setSettings({ handsFree: true });
    await poll(offscreenStatus, (s) => s?.mic.capturing === true, 30_000, 200);
    expect(await fault('end-mic')).toMatchObject({ ok: true });
    await poll(notices, (n) => n.some((t) => /microphone stopped/i.test(t)), 15_000, 200);
    await poll(settings, (s) => !s.handsFree, 15_000, 200);
    const status = await poll(offscreenStatus, (s) => s?.mic.capturing === false, 15_000, 200);
    expect(status?.mic.error).toMatch(/revoked|unplugged/);
    const before = await panel.locator('.line.assistant').count();
    await say('what is 3 times 3');
    await assistantLine(before, (t) => t.includes('9'));
    await setSettings({ debugPanel: false });
    expect(session.errors.filter((e) => /uncaught/i.test(e))).toEqual([]);
  });
});
