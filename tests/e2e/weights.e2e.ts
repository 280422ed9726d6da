import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Reply } from '../../core/protocol';
import type { WeightsSnapshot } from '../../core/weights';
import { ASR_BUNDLES, LLM_BUNDLE, LLM_MODEL, MODEL_BUNDLES, TTS_BUNDLE } from '../../models/registry';
import type { HubServer } from '../fixtures/hub/server';
import { startFixtureHub, transfers, type FixtureHub } from './fixture-hub';
import { launchExtension, poll, screenshotColours, sendFromPage, type ExtensionSession } from './harness';

let session: ExtensionSession;
let fixtures: FixtureHub;
let hub: HubServer;

beforeAll(async () => {
  // The LLM graph streams slowly the first time so the test can watch progress and kill the download mid-file.
  fixtures = await startFixtureHub((repos) => ({
    [`${repos.llm}/onnx/model_q4.onnx`]: { kind: 'slow', delayMs: 120, chunkBytes: 256, times: 1 },
  }));
  hub = fixtures.hub;
  session = await launchExtension({ extensionDir: fixtures.extensionDir });
});

afterAll(async () => {
  await session?.close();
  await fixtures?.close();
});

const modelsState = (page: Parameters<typeof sendFromPage>[0]) =>
  sendFromPage<Reply<WeightsSnapshot | null>>(page, {
    kind: 'request',
    type: 'weights/state',
    target: 'background',
    payload: {},
  });

describe('model downloads in the built extension', () => {
  it('downloads every bundle from a mirror with visible progress, surviving a killed offscreen document', async () => {
    const panel = await session.openPage('sidepanel.html');
    await panel.setViewportSize({ width: 420, height: 900 });
    await panel.getByTestId('settings-button').click();
    await panel.getByTestId('mirror-input').fill(hub.url);
    await panel.getByRole('button', { name: 'Save' }).click();
    await poll(
      () => session.worker.evaluate(() => chrome.storage.local.get('settings')),
      (s) => (s as { settings?: { mirrorBaseUrl?: string } }).settings?.mirrorBaseUrl === hub.url,
    );

    await panel.getByTestId('download-all').click();
    const llm = panel.getByTestId(`model-${MODEL_BUNDLES[0]!.id}`);
    await poll(
      () => llm.getAttribute('data-status'),
      (s) => s === 'downloading',
    );
    // Progress shows real bytes of the real total while the slow file streams.
    const text = await poll(
      () => llm.getByTestId('model-bytes').innerText(),
      (t) => /[1-9][\d.]* KB of/.test(t),
    );
    expect(text).toMatch(/KB of [\d.]+ KB/);
    expect(await screenshotColours(panel, 'models-downloading')).toBeGreaterThan(20);

    // Kill the engine mid-download: the background re-creates it and tells it to resume the pending bundles.
    await session.worker.evaluate(() => chrome.offscreen.closeDocument());
    const done = await poll(
      () => modelsState(panel),
      (r) => r.ok && r.data !== null && r.data.bundles.every((b) => b.status === 'complete'),
      60_000,
      250,
    );
    expect(done.ok && done.data?.bundles.map((b) => b.id)).toEqual(MODEL_BUNDLES.map((b) => b.id));
    await poll(
      () => llm.getAttribute('data-status'),
      (s) => s === 'complete',
    );
    await poll(
      () => panel.getByTestId('download-all').innerText(),
      (t) => t.includes('All models are ready'),
    );
    // The first, killed transfer of the slow file did not finish; a second request fetched it.
    const graphRequests = transfers(hub.log, fixtures.file(LLM_BUNDLE.id, 'model'));
    expect(graphRequests.length).toBeGreaterThanOrEqual(2);
    // LFS files came through the hub's redirect to its CDN on another origin, at the pinned commit only.
    expect(hub.log.some((e) => e.status === 302)).toBe(true);
    expect(hub.log.filter((e) => e.path.includes('/resolve/main/'))).toEqual([]);
    await panel.close();
  });

  it('reads the files back from Cache Storage under the exact hub URLs transformers.js looks up', async () => {
    const page = await session.openPage('popup.html');
    const keys = await page.evaluate(async () => {
      const cache = await caches.open('transformers-cache');
      return (await cache.keys()).map((r) => r.url);
    });
    const graph = fixtures.file(LLM_BUNDLE.id, 'model');
    expect(graph.url).toMatch(new RegExp(`/resolve/${LLM_MODEL.revision}/onnx/model_q4\\.onnx$`));
    expect(keys).toContain(graph.url);
    expect(keys).toContain(fixtures.file(LLM_BUNDLE.id, 'tokenizer').url);
    // Files of two repos in one bundle (Pocket TTS graphs and Kyutai's voice states), each under its own commit.
    expect(keys).toContain(fixtures.file(TTS_BUNDLE.id, 'voice.alba').url);
    expect(keys).toContain(fixtures.file(TTS_BUNDLE.id, 'flow_lm_main.int8').url);
    const size = await page.evaluate(async (url) => {
      const res = await (await caches.open('transformers-cache')).match(url);
      return res ? (await res.arrayBuffer()).byteLength : -1;
    }, graph.url);
    expect(size).toBe(graph.size);
    await page.close();
  });

  it('deletes a model and frees its storage', async () => {
    const panel = await session.openPage('sidepanel.html');
    await panel.getByTestId('settings-button').click();
    const whisperId = ASR_BUNDLES.whisper.id;
    const whisper = panel.getByTestId(`model-${whisperId}`);
    await whisper.getByRole('button', { name: 'Delete' }).click();
    const state = await poll(
      () => modelsState(panel),
      (r) => r.ok && r.data?.bundles.find((b) => b.id === whisperId)?.status === 'missing',
    );
    expect(state.ok && state.data?.bundles.find((b) => b.id === MODEL_BUNDLES[0]!.id)?.status).toBe('complete');
    await panel.close();
  });

  it('logged no console errors', () => {
    expect(session.errors).toEqual([]);
  });
});
