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
import {
  downloadModels,
  launchExtension,
  poll,
  request,
  sendFromPage,
  waitForLiveTunable,
  type ExtensionSession,
} from './harness';

let session: ExtensionSession;
let fixtures: FixtureHub;
let panel: Page;

/** Parts are persisted every PART bytes (the smallest the weights tunables allow); a resume starts after the last one. */
const PART = 64 * 1024;

/** Bytes of `url` persisted as resume parts in Cache Storage (the part URLs end in `{index}-{size}`). */
function storedPartBytes(page: Page, url: string): Promise<number> {
  return page.evaluate(async (fileUrl) => {
    const prefix = `https://sidetalk-parts.invalid/${encodeURIComponent(fileUrl)}/`;
    const keys = await (await caches.open('sidetalk-weight-parts')).keys();
    return keys.filter((r) => r.url.startsWith(prefix)).reduce((sum, r) => sum + Number(/-(\d+)$/.exec(r.url)?.[1] ?? 0), 0);
  }, url);
}
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
type HeardEvent = { t: number; type: string; detail: string };
/** From now on the panel page keeps the runtime events it hears (type, and what a notice, user caption or state says). */
const recordPanelEvents = () =>
  panel.evaluate(() => {
    const g = globalThis as unknown as { __heardEvents: HeardEvent[] };
    g.__heardEvents = [];
    const t0 = performance.now();
    chrome.runtime.onMessage.addListener((m: { kind?: string; type?: string; payload?: Record<string, unknown> }) => {
      if (m?.kind !== 'event') return;
      const p = m.payload ?? {};
      const detail =
        m.type === 'event/notice'
          ? String(p.message)
          : m.type === 'event/engine-state'
            ? String(p.state)
            : m.type === 'event/caption'
              ? `${String(p.role)} ${String(p.turnId)}`
              : '';
      g.__heardEvents.push({ t: Math.round(performance.now() - t0), type: m.type ?? '?', detail });
    });
  });
const panelEvents = () =>
  panel.evaluate(() => (globalThis as unknown as { __heardEvents: HeardEvent[] }).__heardEvents.slice(-200));

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
  it('the service worker is stopped mid-download, then the engine dies with no panel open: the fresh worker resumes it by Range', async () => {
    // The downloads run in the offscreen document, which a stopped worker does not touch. What the worker owns is the
    // list of downloads the user asked for: a fresh worker must know it from storage alone, re-create the engine
    // when it dies, and have it resume after the bytes already stored, with no panel open to ask for it.
    const big = TTS_BUNDLE.files.map((f) => fixtures.file(TTS_BUNDLE.id, f.role)).sort((a, b) => b.size - a.size)[0]!;
    expect(big.size).toBeGreaterThan(2 * PART);
    await setSettings({ debugPanel: true });
    await sendFromPage(panel, request('tunables/set', 'background', { path: 'weights.partBytes', value: PART }));
    await waitForLiveTunable(panel, 'weights', 'partBytes', PART);
    // Exactly one part arrives, then the connection hangs: every byte sent is stored when the engine dies.
    fixtures.hub.setFault(big.key, { kind: 'stall', afterBytes: PART, times: 1 });
    const before = fixtures.hub.log.length;
    await sendFromPage(panel, request('weights/download', 'background', { bundleIds: [TTS_BUNDLE.id] }));
    await poll(
      () => storedPartBytes(panel, big.url),
      (n) => n === PART,
      30_000,
      100,
    );

    // No panel: a popup page (it holds no port and never creates the engine) watches.
    await panel.close();
    const popup = await session.openPage('popup.html');
    type Heard = { __statusEvents: number };
    await popup.evaluate(() => {
      (window as unknown as Heard).__statusEvents = 0;
      chrome.runtime.onMessage.addListener((m: { type?: string }) => {
        if (m?.type === 'event/status') (window as unknown as Heard).__statusEvents += 1;
      });
    });
    await session.worker.evaluate(() => ((globalThis as unknown as { __beforeStop: boolean }).__beforeStop = true));
    const cdp = await session.context.newCDPSession(popup);
    await stopServiceWorker(cdp, session.extensionId);
    await cdp.detach();
    await popup.evaluate(() => ((window as unknown as Heard).__statusEvents = 0));
    // Any message wakes a fresh worker; it is the one that closes the engine's document (no module state survived).
    const fresh = await poll(
      async () => {
        await sendFromPage(popup, request('status/get', 'background')).catch(() => undefined);
        for (const w of session.context.serviceWorkers().filter((x) => x.url().includes(session.extensionId))) {
          const marked = await w
            .evaluate(() => (globalThis as unknown as { __beforeStop?: boolean }).__beforeStop ?? false)
            .catch(() => true);
          if (!marked) return w;
        }
        return null;
      },
      (w) => w !== null,
      30_000,
      250,
    );
    // The engine's document has re-connected to the fresh worker (it reported its status through it): kill it now.
    await poll(
      () => popup.evaluate(() => (window as unknown as Heard).__statusEvents),
      (n) => n > 0,
      30_000,
    );
    await fresh!.evaluate(() => chrome.offscreen.closeDocument());
    const state = () => sendFromPage<Reply<WeightsSnapshot | null>>(popup, request('weights/state', 'background'));
    await poll(state, (r) => bundleOf(r, TTS_BUNDLE.id)?.status === 'complete', 60_000, 250);

    // The hub's log: the part that was stored, then the rest by Range from that byte; no byte twice.
    const gets = transfers(fixtures.hub.log.slice(before), big).map(({ range, status, bytes }) => ({ range, status, bytes }));
    expect(gets).toEqual([
      { range: null, status: 200, bytes: PART },
      { range: `bytes=${PART}-`, status: 206, bytes: big.size - PART },
    ]);
    const stored = await popup.evaluate(async (url) => {
      const res = await (await caches.open('transformers-cache')).match(url);
      return res ? (await res.arrayBuffer()).byteLength : -1;
    }, big.url);
    expect(stored).toBe(big.size);

    panel = await session.openPage('sidepanel.html');
    await panel.setViewportSize({ width: 420, height: 860 });
    await popup.close();
    await sendFromPage(panel, request('tunables/reset', 'background'));
    await setSettings({ debugPanel: false });
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
    await recordPanelEvents();
    expect(await fault('lose-gpu')).toMatchObject({ ok: true });
    // A busy 2-core machine can hold the worker's next message for a while (a model load blocks its thread): wait long.
    await poll(notices, (n) => n.some((t) => /GPU stopped responding/.test(t)), 90_000, 200).catch(async (err: Error) => {
      // What the panel heard since the fault and where the engine's worker stands: the run's own evidence.
      const stats = await sendFromPage(panel, request('debug/gpu-stats', 'offscreen')).catch((e: Error) => e.message);
      throw new Error(`${err.message}\nheard: ${JSON.stringify(await panelEvents())}\ngpu-stats: ${JSON.stringify(stats)}`);
    });
    const heardAt = (await panelEvents()).find((e) => /GPU stopped responding/.test(e.detail))?.t;
    console.log(`[faults] the GPU notice reached the panel ${heardAt} ms after the fault`);
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
    // The loss is one notice: the model job it broke is not reported as a model failure as well.
    const said = (await panelEvents()).filter((e) => e.type === 'event/notice').map((e) => e.detail);
    expect(said.filter((m) => /GPU stopped responding/.test(m))).toHaveLength(1);
    expect(said.filter((m) => /language model stopped/.test(m))).toEqual([]);
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
