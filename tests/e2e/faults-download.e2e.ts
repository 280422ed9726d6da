/**
 * Fault matrix in the built extension, download faults (fixture models on the local hub). Each case injects one fault
 * and checks what the user sees, and that nothing already there is lost: downloaded files stay, a retry completes.
 * Faults during a conversation (tools, contexts): faults-conversation.e2e.ts; helpers: faults-shared.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ASR_MODELS } from '../../models/registry';
import { transfers, type FixtureHub } from './fixture-hub';
import { launchExtension, poll, sendFromPage, type ExtensionSession } from './harness';
import {
  bundleOf,
  closeFaultsWorld,
  request,
  startFaultsWorld,
  weightsStateOf,
  WHISPER,
  type FaultsWorld,
} from './faults-shared';

let world: FaultsWorld;
let session: ExtensionSession;
let fixtures: FixtureHub;
let panel: Page;

const modelsState = (page: Page = panel) => weightsStateOf(page);

async function openModelsSettings(page: Page): Promise<void> {
  if ((await page.getByTestId('models-panel').count()) === 0) await page.getByTestId('settings-button').click();
  await page.getByTestId('models-panel').waitFor({ state: 'visible' });
}

async function downloadWhisper(): Promise<void> {
  await sendFromPage(panel, request('weights/download', 'background', { bundleIds: [WHISPER.id] }));
}

async function deleteWhisper(): Promise<void> {
  await sendFromPage(panel, request('weights/delete', 'background', { bundleId: WHISPER.id }));
  await poll(
    () => modelsState(),
    (r) => bundleOf(r, WHISPER.id)?.status === 'missing',
  );
}

/** Files of the whisper fixture that the cache holds (complete entries), by repo path. */
async function cachedWhisperFiles(): Promise<string[]> {
  const config = fixtures.file(WHISPER.id, 'config');
  const prefix = config.url.slice(0, -config.path.length);
  return panel.evaluate(async (p) => {
    const cache = await caches.open('transformers-cache');
    return (await cache.keys())
      .map((r) => r.url)
      .filter((u) => u.startsWith(p))
      .map((u) => u.slice(p.length));
  }, prefix);
}

beforeAll(async () => {
  world = await startFaultsWorld({ toolsApi: false });
  ({ session, fixtures, panel } = world);
});

afterAll(async () => {
  await closeFaultsWorld(world);
});

describe('download faults (models panel)', () => {
  const repoKey = (path: string) => `${ASR_MODELS.whisper.repo}/${path}`;
  const encoder = 'onnx/encoder_model.onnx';
  const decoder = 'onnx/decoder_model_merged.onnx';

  it('the hub answers an HTML page instead of a file: a clear alert, the bundle is not marked ready; a retry completes', async () => {
    fixtures.hub.setFault(repoKey('config.json'), { kind: 'html' });
    try {
      await openModelsSettings(panel);
      await downloadWhisper();
      const alert = panel.getByTestId('models-error');
      await alert.waitFor({ state: 'visible', timeout: 60_000 });
      expect(await alert.innerText()).toMatch(/web page instead of a model file/);
      const state = await modelsState();
      expect(bundleOf(state, WHISPER.id)?.status).not.toBe('complete');
      expect(state.ok && state.data?.lastError).toMatchObject({ bundleId: WHISPER.id, code: 'html_instead_of_file' });
      // The HTML page was not cached as the file.
      expect(await cachedWhisperFiles()).not.toContain('config.json');
    } finally {
      fixtures.hub.setFault(repoKey('config.json'), null);
    }
    const alert = panel.getByTestId('models-error');
    await downloadWhisper();
    await poll(
      () => modelsState(),
      (r) => bundleOf(r, WHISPER.id)?.status === 'complete',
      60_000,
      250,
    );
    await poll(
      () => alert.count(),
      (n) => n === 0,
    );
    await deleteWhisper();
  });

  it('a required file is missing (404): a clear alert naming the cause; a retry completes', async () => {
    fixtures.hub.setFault(repoKey('preprocessor_config.json'), { kind: 'status', status: 404 });
    try {
      await downloadWhisper();
      const alert = panel.getByTestId('models-error');
      await poll(
        () => alert.innerText().catch(() => ''),
        (t) => /not found on the server/.test(t),
        60_000,
      );
      expect(bundleOf(await modelsState(), WHISPER.id)?.status).not.toBe('complete');
    } finally {
      fixtures.hub.setFault(repoKey('preprocessor_config.json'), null);
    }
    await downloadWhisper();
    await poll(
      () => modelsState(),
      (r) => bundleOf(r, WHISPER.id)?.status === 'complete',
      60_000,
      250,
    );
    await deleteWhisper();
  });

  it('a corrupt file on the server: integrity error shown, the bad bytes are discarded, other files are kept', async () => {
    fixtures.hub.setFault(repoKey(encoder), { kind: 'corrupt' });
    try {
      await downloadWhisper();
      const alert = panel.getByTestId('models-error');
      await poll(
        () => alert.innerText().catch(() => ''),
        (t) => /encoder_model\.onnx did not match its pinned checksum.*everything else you downloaded is kept/.test(t),
        60_000,
      );
      const state = await modelsState();
      const whisper = bundleOf(state, WHISPER.id)!;
      expect(whisper.status).not.toBe('complete');
      // Nothing of the corrupt file was kept (neither a cache entry nor resume bytes); files that arrived before stay.
      expect(whisper.files.find((f) => f.path === encoder)).toMatchObject({ status: 'missing', bytes: 0 });
      const cached = await cachedWhisperFiles();
      expect(cached).not.toContain(encoder);
      expect(cached).toContain('config.json');
      // It was fetched twice (one automatic retry), then refused.
      expect(fixtures.hub.log.filter((e) => e.path.endsWith(`/${encoder}`) && e.fault === 'corrupt').length).toBe(2);
    } finally {
      fixtures.hub.setFault(repoKey(encoder), null);
    }
    const before = fixtures.hub.log.length;
    await downloadWhisper();
    await poll(
      () => modelsState(),
      (r) => bundleOf(r, WHISPER.id)?.status === 'complete',
      60_000,
      250,
    );
    // The retry only fetched what was missing: config.json (kept) was not downloaded again.
    expect(transfers(fixtures.hub.log.slice(before), fixtures.file(WHISPER.id, 'config'))).toEqual([]);
    await deleteWhisper();
  });

  it('the network drops mid-file: the download retries from what it has and completes without a user action', async () => {
    const decoderFile = fixtures.file(WHISPER.id, 'decoder');
    const size = decoderFile.size;
    const cut = Math.floor(size / 2);
    // The server holds the connection after the last byte before it closes, so the page has read every byte sent.
    fixtures.hub.setFault(repoKey(decoder), { kind: 'drop', afterBytes: cut, holdMs: 500, times: 1 });
    const before = fixtures.hub.log.length;
    try {
      await downloadWhisper();
      await poll(
        () => modelsState(),
        (r) => bundleOf(r, WHISPER.id)?.status === 'complete',
        90_000,
        250,
      );
    } finally {
      fixtures.hub.setFault(repoKey(decoder), null);
    }
    const requests = transfers(fixtures.hub.log.slice(before), decoderFile);
    expect(requests[0]).toMatchObject({ fault: 'drop', bytes: cut });
    // The page held every byte sent before the drop: the one retry asks for exactly the rest (206 from `cut`), and a
    // restart from 0 fails here. Every byte of the file crossed the network once.
    const retries = requests.slice(1).filter((e) => e.status === 200 || e.status === 206);
    expect(retries, `retry requests: ${JSON.stringify(requests)}`).toEqual([
      expect.objectContaining({ range: `bytes=${cut}-`, status: 206, bytes: size - cut }),
    ]);
    const bytes = await panel.evaluate(async (url) => {
      const res = await (await caches.open('transformers-cache')).match(url);
      return res ? (await res.arrayBuffer()).byteLength : -1;
    }, decoderFile.url);
    expect(bytes).toBe(size);
    expect(await panel.getByTestId('models-error').count()).toBe(0);
  });

  it('logged no console errors', () => {
    expect(session.errors).toEqual([]);
  });
});

describe('microphone permission not granted', () => {
  it('the side panel shows the grant notice and the orb is disabled; typing still works', async () => {
    const noMic = await launchExtension({ extensionDir: fixtures.extensionDir, autoGrantMedia: false });
    try {
      const page = await noMic.openPage('sidepanel.html');
      const notice = page.getByTestId('microphone-notice');
      await notice.waitFor({ state: 'visible' });
      expect(await notice.innerText()).toMatch(/needs the microphone|blocked/);
      expect(await notice.getByRole('button', { name: /Grant microphone access/ }).isVisible()).toBe(true);
      expect(await page.getByTestId('orb').isDisabled()).toBe(true);
      expect(await page.getByTestId('orb').getAttribute('title')).toMatch(/Grant microphone access first/);
      // The composer does not depend on the microphone.
      expect(await page.getByTestId('composer').isEditable()).toBe(true);
      const state = await page.evaluate(
        async () => (await navigator.permissions.query({ name: 'microphone' as PermissionName })).state,
      );
      expect(state).not.toBe('granted');
    } finally {
      await noMic.close();
    }
  });
});
