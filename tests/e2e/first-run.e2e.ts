/**
 * A new user's first run against a hub laid out like the real one: a fresh profile sees what talking needs and its
 * exact size before anything downloads, downloads the default set with one button (every file at its pinned commit,
 * LFS files through the hub's redirect to a CDN on another origin, bytes checked against the pinned sha256), and then
 * holds a spoken turn. The same run shows a file whose bytes differ from the pin being refused with a clear message
 * while everything else stays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Reply } from '../../core/protocol';
import type { WeightsSnapshot } from '../../core/weights';
import { manifestBundles } from '../../core/weights/manifest';
import { bundleTotalBytes } from '../../core/weights/registry';
import { formatBytes } from '../../components/models/format';
import { ASR_BUNDLES, TTS_GPU_BUNDLE } from '../../models/registry';
import { makeSpeechWav } from '../fixtures/audio/make-wav';
import { startFixtureHub, transfers, type FixtureHub } from './fixture-hub';
import { engineMarks, launchExtension, poll, request, sendFromPage, waitForOffscreen, type ExtensionSession } from './harness';

let session: ExtensionSession;
let fixtures: FixtureHub;
let panel: Page;

const state = () => sendFromPage<Reply<WeightsSnapshot | null>>(panel, request('weights/state', 'background'));
const statusOf = (r: Reply<WeightsSnapshot | null>, id: string) =>
  r.ok ? r.data?.bundles.find((b) => b.id === id)?.status : undefined;

beforeAll(async () => {
  fixtures = await startFixtureHub();
  const wav = makeSpeechWav('first-run-mic', 'What time is it in Tokyo right now?', 1.5, 20);
  session = await launchExtension({ extensionDir: fixtures.extensionDir, micWav: wav });
  panel = await session.openPage('sidepanel.html');
  await panel.setViewportSize({ width: 420, height: 900 });
  await waitForOffscreen(session, panel);
  await sendFromPage(
    panel,
    request('settings/set', 'background', { patch: { mirrorBaseUrl: fixtures.hub.url, computeBackend: 'wasm' } }),
  );
});

afterAll(async () => {
  await session?.close();
  await fixtures?.close();
});

describe('first run on a fresh profile, hub in the real layout', () => {
  const bundles = () => manifestBundles(fixtures.manifest);
  const defaults = () => bundles().filter((b) => b.default);

  it('shows what talking needs, its licences and its exact size before anything is downloaded', async () => {
    await panel.getByTestId('settings-button').click();
    const box = panel.getByTestId('default-set');
    await box.waitFor();
    const total = defaults().reduce((s, b) => s + bundleTotalBytes(b), 0);
    expect(Number(await box.getAttribute('data-bytes'))).toBe(total);
    const text = await box.innerText();
    expect(text).toContain(formatBytes(total));
    expect(text).toContain(total.toLocaleString('en-US'));
    for (const b of defaults()) expect(text).toContain(b.label);
    expect(text).toMatch(/CC-BY-4\.0/);
    expect(fixtures.hub.log.filter((e) => e.path.includes('/resolve/'))).toEqual([]);
  });

  it('downloads exactly the default set with one button, at the pinned commits, through the CDN redirect', async () => {
    await panel.getByTestId('download-defaults').click();
    await poll(state, (r) => defaults().every((b) => statusOf(r, b.id) === 'complete'), 120_000, 250);
    const r = await state();
    for (const b of bundles().filter((x) => !x.default)) expect(statusOf(r, b.id), b.id).toBe('missing');
    const commits = new Set(Object.values(fixtures.manifest.repos).map((x) => x.commit));
    const resolves = fixtures.hub.log.filter((e) => e.path.includes('/resolve/'));
    expect(resolves.length).toBeGreaterThan(0);
    for (const e of resolves) expect(commits.has(e.path.split('/resolve/')[1]!.split('/')[0]!), e.path).toBe(true);
    // Every LFS file of the default set came from the CDN origin, once.
    const lfs = fixtures.manifest.bundles
      .filter((b) => b.default)
      .flatMap((b) => b.files.filter((f) => f.lfs).map((f) => ({ b, f })));
    for (const { b, f } of lfs) {
      const got = transfers(fixtures.hub.log, fixtures.file(b.id, f.role));
      expect(
        got.map((e) => e.path),
        f.path,
      ).toEqual([`/cdn/${fixtures.file(b.id, f.role).key}`]);
    }
    await poll(
      () => panel.getByTestId('download-defaults').innerText(),
      (t) => /Ready to talk/.test(t),
    );
  });

  it('holds a spoken turn with what it downloaded', async () => {
    await panel.getByTestId('settings-button').click(); // back to the conversation
    const before = (await engineMarks(panel)).length;
    await panel.getByTestId('orb').click();
    const all = await poll(
      () => engineMarks(panel),
      (m) => m.slice(before).some((x) => x.name === 'done'),
      120_000,
      250,
    );
    const names = all.slice(before).map((m) => m.name);
    for (const name of ['speech-start', 'end-of-speech', 'transcript', 'first-speak', 'first-audio', 'done'])
      expect(names).toContain(name);
    await panel.getByTestId('orb').click();
    await poll(
      () => session.worker.evaluate(() => chrome.storage.local.get('settings')),
      (s) => (s as { settings?: { handsFree?: boolean } }).settings?.handsFree === false,
    );
  });

  it('refuses a file whose bytes are not the pinned ones, says which in words, and loses nothing else', async () => {
    const graph = fixtures.file(TTS_GPU_BUNDLE.id, 'mimi_decoder.fp32');
    fixtures.hub.setFault(graph.key, { kind: 'corrupt' });
    try {
      await sendFromPage(panel, request('weights/download', 'background', { bundleIds: [TTS_GPU_BUNDLE.id] }));
      const r = await poll(state, (x) => x.ok && x.data?.lastError?.bundleId === TTS_GPU_BUNDLE.id, 60_000, 250);
      const err = r.ok ? r.data?.lastError : null;
      expect(err?.code).toBe('integrity');
      expect(err?.message).toMatch(
        /^mimi_decoder\.onnx did not match its pinned checksum or size, so it was discarded; everything else you downloaded is kept/,
      );
      expect(err?.message).not.toMatch(/https?:/);
      await panel.getByTestId('settings-button').click();
      await poll(
        () =>
          panel
            .getByTestId('models-error')
            .innerText()
            .catch(() => ''),
        (t) => /mimi_decoder\.onnx did not match/.test(t),
      );
      const after = await state();
      expect(statusOf(after, TTS_GPU_BUNDLE.id)).not.toBe('complete');
      for (const b of defaults()) expect(statusOf(after, b.id), b.id).toBe('complete');
      const gpu = after.ok ? after.data?.bundles.find((b) => b.id === TTS_GPU_BUNDLE.id) : undefined;
      expect(gpu?.files.find((f) => f.role === 'mimi_decoder.fp32')).toMatchObject({ status: 'missing', bytes: 0 });
      expect(gpu?.files.find((f) => f.role === 'flow_lm_main.fp32')?.status).toBe('complete');
    } finally {
      fixtures.hub.setFault(graph.key, null);
    }
    expect(statusOf(await state(), ASR_BUNDLES.whisper.id)).toBe('missing');
  });

  it('logged no console errors', () => {
    expect(session.errors.filter((e) => !/did not match its pinned checksum/.test(e))).toEqual([]);
  });
});
