import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Reply } from '../../core/protocol';
import type { WeightsSnapshot } from '../../core/weights';
import { ASR_BUNDLES, LLM_BUNDLE, LLM_MODEL, MODEL_BUNDLES, TTS_BUNDLE } from '../../models/registry';
import type { HubServer } from '../fixtures/hub/server';
import { startFixtureHub, transfers, type FixtureHub } from './fixture-hub';
import {
  launchExtension,
  poll,
  request,
  screenshotColours,
  sendFromPage,
  waitForLiveTunable,
  type ExtensionSession,
} from './harness';

let session: ExtensionSession;
let fixtures: FixtureHub;
let hub: HubServer;

/** Parts are persisted every PART bytes (the smallest the weights tunables allow); a resume starts after the last one. */
const PART = 64 * 1024;

beforeAll(async () => {
  fixtures = await startFixtureHub();
  hub = fixtures.hub;
  session = await launchExtension({ extensionDir: fixtures.extensionDir });
});

/** Bytes of `url` persisted as resume parts in Cache Storage (the part URLs end in `{index}-{size}`). */
function storedPartBytes(page: Parameters<typeof sendFromPage>[0], url: string): Promise<number> {
  return page.evaluate(async (fileUrl) => {
    const prefix = `https://sidetalk-parts.invalid/${encodeURIComponent(fileUrl)}/`;
    const keys = await (await caches.open('sidetalk-weight-parts')).keys();
    return keys.filter((r) => r.url.startsWith(prefix)).reduce((sum, r) => sum + Number(/-(\d+)$/.exec(r.url)?.[1] ?? 0), 0);
  }, url);
}

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
    // One voice file stops after exactly one part: every byte sent is then stored, and the document is killed there.
    const voice = fixtures.file(TTS_BUNDLE.id, 'voice.alba');
    expect(voice.size).toBeGreaterThan(2 * PART);
    hub.setFault(voice.key, { kind: 'stall', afterBytes: PART, times: 1 });
    const must = async (type: string, payload: unknown) => {
      const r = await sendFromPage<Reply<unknown>>(panel, request(type, 'background', payload));
      if (!r.ok) throw new Error(r.error.message);
    };
    await must('settings/set', { patch: { debugPanel: true } });
    await must('tunables/set', { path: 'weights.partBytes', value: PART });
    await waitForLiveTunable(panel, 'weights', 'partBytes', PART);
    await panel.getByTestId('settings-button').click();
    await panel.getByTestId('mirror-input').fill(hub.url);
    await panel.getByRole('button', { name: 'Save' }).click();
    await poll(
      () => session.worker.evaluate(() => chrome.storage.local.get('settings')),
      (s) => (s as { settings?: { mirrorBaseUrl?: string } }).settings?.mirrorBaseUrl === hub.url,
    );

    await panel.getByTestId('download-all').click();
    const tts = panel.getByTestId(`model-${TTS_BUNDLE.id}`);
    await poll(
      () => tts.getAttribute('data-status'),
      (s) => s === 'downloading',
      30_000,
    );
    // Progress shows real bytes of the real total while the voice file hangs after its first part.
    const text = await poll(
      () => tts.getByTestId('model-bytes').innerText(),
      (t) => /[1-9][\d.]* (?:KB|MB) of/.test(t),
    );
    expect(text).toMatch(/(?:KB|MB) of [\d.]+ (?:KB|MB)/);
    expect(await screenshotColours(panel, 'models-downloading')).toBeGreaterThan(20);

    // The part is in Cache Storage: kill the engine there. The background re-creates it and tells it to resume.
    expect(
      await poll(
        () => storedPartBytes(panel, voice.url),
        (n) => n === PART,
        30_000,
      ),
    ).toBe(PART);
    await session.worker.evaluate(() => chrome.offscreen.closeDocument());
    const done = await poll(
      () => modelsState(panel),
      (r) => r.ok && r.data !== null && r.data.bundles.every((b) => b.status === 'complete'),
      60_000,
      250,
    );
    expect(done.ok && done.data?.bundles.map((b) => b.id)).toEqual(MODEL_BUNDLES.map((b) => b.id));
    await poll(
      () => tts.getAttribute('data-status'),
      (s) => s === 'complete',
    );
    await poll(
      () => panel.getByTestId('download-all').innerText(),
      (t) => t.includes('All models are ready'),
    );
    // The hub's log: the first transfer of the voice file carried exactly the stored part; the second asked for the
    // rest by Range from that byte and got it. Every byte of the file was sent once.
    const voiceRequests = transfers(hub.log, voice).map(({ range, status, bytes }) => ({ range, status, bytes }));
    expect(voiceRequests).toEqual([
      { range: null, status: 200, bytes: PART },
      { range: `bytes=${PART}-`, status: 206, bytes: voice.size - PART },
    ]);
    const stored = await panel.evaluate(async (url) => {
      const res = await (await caches.open('transformers-cache')).match(url);
      return res ? (await res.arrayBuffer()).byteLength : -1;
    }, voice.url);
    expect(stored).toBe(voice.size);
    expect(await storedPartBytes(panel, voice.url)).toBe(0);
    await must('tunables/reset', {});
    await must('settings/set', { patch: { debugPanel: false } });
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
