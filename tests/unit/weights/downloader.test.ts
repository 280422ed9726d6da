import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHubServer, type HubServer } from '../../fixtures/hub/server';
import { MemoryByteStore, partsSize } from '../../../core/weights/byte-store';
import { WeightsError } from '../../../core/weights/errors';
import { bundleState, deleteBundle } from '../../../core/weights/state';
import type { DownloadEvent } from '../../../core/weights/types';
import {
  CONFIG,
  DATA,
  MODEL,
  REPO,
  digestOf,
  hubFiles,
  makeDownloader,
  responseBytes,
  sha256Hex,
  tinyBundle,
  tinyFile,
} from './helpers';

let hub: HubServer;
const MODEL_KEY = `${REPO}/onnx/model.onnx`;
const modelPath = `/${REPO}/resolve/main/onnx/model.onnx`;
const progressOf = (events: DownloadEvent[]) => events.filter((e) => e.type === 'progress');

async function expectCode(p: Promise<unknown>, code: WeightsError['code']): Promise<WeightsError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WeightsError);
  expect((err as WeightsError).code).toBe(code);
  expect((err as WeightsError).userMessage.length).toBeGreaterThan(20);
  return err as WeightsError;
}

beforeEach(async () => {
  hub = await startHubServer({ files: hubFiles() });
});
afterEach(async () => {
  await hub.close();
});

describe('WeightsDownloader against the local hub', () => {
  it('downloads a whole bundle, verifies it and reports sane progress', async () => {
    const store = new MemoryByteStore();
    const { dl, events } = makeDownloader(store, hub.url);
    const state = await dl.downloadBundle(tinyBundle());
    expect(state.status).toBe('complete');
    expect(state.files.map((f) => f.status)).toEqual(['complete', 'complete', 'complete', 'missing']);
    expect(await digestOf(await store.read(dl.urlOf(tinyFile('onnx/model.onnx'))))).toBe(sha256Hex(MODEL));
    expect(await digestOf(await store.read(dl.urlOf(tinyFile('onnx/model.onnx_data'))))).toBe(sha256Hex(DATA));
    const cfg = await store.read(dl.urlOf(tinyFile('config.json')));
    expect(cfg?.headers.get('content-type')).toBe('application/json');
    expect(await responseBytes(cfg)).toEqual(CONFIG);
    // One plain GET per file, the optional one answered 404 and skipped.
    expect(hub.log.map((e) => [e.path.split('/resolve/main/')[1], e.range, e.status])).toEqual([
      ['config.json', null, 200],
      ['onnx/model.onnx', null, 200],
      ['onnx/model.onnx_data', null, 200],
      ['generation_config.json', null, 404],
    ]);
    expect(events.filter((e) => e.type === 'file-absent').map((e) => e.path)).toEqual(['generation_config.json']);

    const progress = progressOf(events);
    expect(progress.length).toBeGreaterThan(5);
    for (let i = 1; i < progress.length; i++) {
      expect(progress[i]!.bytes).toBeGreaterThanOrEqual(progress[i - 1]!.bytes);
      expect(progress[i]!.bytes).toBeLessThanOrEqual(progress[i]!.total);
      expect(progress[i]!.speedBps).toBeGreaterThanOrEqual(0);
    }
    const required = CONFIG.byteLength + MODEL.byteLength + DATA.byteLength;
    expect(progress.at(-1)).toMatchObject({ bytes: required, etaSeconds: 0 });
    const mid = progress.find((p) => p.path === 'onnx/model.onnx' && p.fileBytes > 100_000 && p.fileBytes < MODEL.byteLength);
    expect(mid?.speedBps).toBeGreaterThan(0);
    expect(mid?.etaSeconds).toBeCloseTo((mid!.total - mid!.bytes) / mid!.speedBps, 6);

    // A second call finds everything complete and makes no request.
    hub.clearLog();
    expect((await dl.downloadBundle(tinyBundle())).status).toBe('complete');
    expect(hub.log.filter((e) => !e.path.endsWith('generation_config.json'))).toEqual([]);
  });

  it('resumes a dropped connection with a Range request from the stored offset', async () => {
    hub.setFault(MODEL_KEY, { kind: 'drop', afterBytes: 100_000, times: 1 });
    const store = new MemoryByteStore();
    const { dl, events } = makeDownloader(store, hub.url);
    expect((await dl.downloadBundle(tinyBundle())).status).toBe('complete');
    const modelReqs = hub.log.filter((e) => e.path === modelPath);
    expect(modelReqs.map((e) => [e.range, e.status, e.bytes])).toEqual([
      [null, 200, 100_000],
      ['bytes=100000-', 206, MODEL.byteLength - 100_000],
    ]);
    expect(events.some((e) => e.type === 'retry' && e.reason === 'network')).toBe(true);
    expect(await digestOf(await store.read(dl.urlOf(tinyFile('onnx/model.onnx'))))).toBe(sha256Hex(MODEL));
  });

  it('a new downloader over the same store (offscreen restart) resumes where the last one stopped', async () => {
    hub.setFault(MODEL_KEY, { kind: 'drop', afterBytes: 150_000, times: 1 });
    const store = new MemoryByteStore();
    const first = makeDownloader(store, hub.url, { settings: { partBytes: 64 * 1024, networkRetries: 0 } });
    await expectCode(first.dl.downloadBundle(tinyBundle()), 'network');
    const key = first.dl.urlOf(tinyFile('onnx/model.onnx'));
    expect(await partsSize(store, key)).toBe(150_000);
    expect(await store.isComplete(key)).toBe(false);
    const partial = await bundleState(tinyBundle(), store, hub.url);
    expect(partial.status).toBe('partial');
    expect(partial.files[1]).toMatchObject({ status: 'partial', bytes: 150_000 });

    hub.clearLog();
    const second = makeDownloader(store, hub.url);
    expect((await second.dl.downloadBundle(tinyBundle())).status).toBe('complete');
    expect(hub.log.filter((e) => e.path === modelPath).map((e) => [e.range, e.status])).toEqual([['bytes=150000-', 206]]);
    expect(hub.log.some((e) => e.path.endsWith('config.json') && e.status === 200)).toBe(false);
    // Progress after the restart starts from what was held, not from zero.
    const firstModelProgress = progressOf(second.events).find((p) => p.path === 'onnx/model.onnx');
    expect(firstModelProgress?.fileBytes).toBe(150_000);
    expect(await digestOf(await store.read(key))).toBe(sha256Hex(MODEL));
  });

  it('restarts from 0 when the server ignores Range', async () => {
    hub.setFault(MODEL_KEY, { kind: 'drop', afterBytes: 70_000, times: 1 });
    const store = new MemoryByteStore();
    const first = makeDownloader(store, hub.url, {
      settings: { partBytes: 64 * 1024, networkRetries: 0, progressIntervalMs: 0 },
    });
    await expectCode(first.dl.downloadBundle(tinyBundle()), 'network');
    hub.setFault(MODEL_KEY, { kind: 'ignoreRange', times: 1 });
    hub.clearLog();
    const { dl } = makeDownloader(store, hub.url);
    expect((await dl.downloadBundle(tinyBundle())).status).toBe('complete');
    expect(hub.log.filter((e) => e.path === modelPath).map((e) => [e.range, e.status, e.bytes])).toEqual([
      ['bytes=70000-', 200, MODEL.byteLength],
    ]);
    expect(await digestOf(await store.read(dl.urlOf(tinyFile('onnx/model.onnx'))))).toBe(sha256Hex(MODEL));
  });

  it('reports not_found for a missing required file and keeps the files already done', async () => {
    const store = new MemoryByteStore();
    const { dl } = makeDownloader(store, hub.url);
    const bundle = tinyBundle();
    bundle.files.splice(2, 0, { ...bundle.files[1]!, role: 'missing', path: 'onnx/missing.onnx', size: 10 });
    const err = await expectCode(dl.downloadBundle(bundle), 'not_found');
    expect(err.path).toBe('onnx/missing.onnx');
    const state = await bundleState(bundle, store, hub.url);
    expect(state.status).toBe('partial');
    expect(state.files.slice(0, 3).map((f) => f.status)).toEqual(['complete', 'complete', 'missing']);
  });

  it('refuses an HTML page served instead of the file and stores none of it', async () => {
    hub.setFault(MODEL_KEY, { kind: 'html' });
    const store = new MemoryByteStore();
    const { dl } = makeDownloader(store, hub.url);
    await expectCode(dl.downloadBundle(tinyBundle()), 'html_instead_of_file');
    const key = dl.urlOf(tinyFile('onnx/model.onnx'));
    expect(await store.isComplete(key)).toBe(false);
    expect(await partsSize(store, key)).toBe(0);
  });

  it('catches corrupt bytes by sha256: re-downloads once, and never marks a still-corrupt file complete', async () => {
    hub.setFault(MODEL_KEY, { kind: 'corrupt', times: 1 });
    const store = new MemoryByteStore();
    const { dl, events } = makeDownloader(store, hub.url);
    expect((await dl.downloadBundle(tinyBundle())).status).toBe('complete');
    expect(hub.log.filter((e) => e.path === modelPath).map((e) => e.fault ?? 'ok')).toEqual(['corrupt', 'ok']);
    expect(events.some((e) => e.type === 'retry' && e.reason === 'integrity')).toBe(true);
    expect(await digestOf(await store.read(dl.urlOf(tinyFile('onnx/model.onnx'))))).toBe(sha256Hex(MODEL));

    const store2 = new MemoryByteStore();
    hub.setFault(MODEL_KEY, { kind: 'corrupt' });
    const second = makeDownloader(store2, hub.url);
    await expectCode(second.dl.downloadBundle(tinyBundle()), 'integrity');
    const key = second.dl.urlOf(tinyFile('onnx/model.onnx'));
    expect(await store2.isComplete(key)).toBe(false);
    expect(await partsSize(store2, key)).toBe(0);
    expect((await bundleState(tinyBundle(), store2, hub.url)).status).toBe('partial');
  });

  it('verifies against the pinned sha256, not what the serving host vouches for (X-Linked-Etag)', async () => {
    // The hub serves other bytes of the same size, with an X-Linked-Etag that matches what it serves.
    const other = new Uint8Array(MODEL.byteLength).fill(9);
    await hub.close();
    hub = await startHubServer({ files: { ...hubFiles(), [MODEL_KEY]: other } });
    const store = new MemoryByteStore();
    const { dl } = makeDownloader(store, hub.url);
    const err = await expectCode(dl.downloadBundle(tinyBundle()), 'integrity');
    expect(hub.log.find((e) => e.path === modelPath)?.status).toBe(200);
    // The user is told which file, in words, and that nothing else is lost.
    expect(err.userMessage).toMatch(/model\.onnx did not match its pinned checksum/);
    expect(err.userMessage).toMatch(/everything else you downloaded is kept/);
    expect(await store.isComplete(dl.urlOf(tinyFile('config.json')))).toBe(true);
    expect(await store.isComplete(dl.urlOf(tinyFile('onnx/model.onnx')))).toBe(false);
    expect(await partsSize(store, dl.urlOf(tinyFile('onnx/model.onnx')))).toBe(0);
  });

  it('rejects a server size that differs from the catalog before storing anything', async () => {
    const bundle = tinyBundle();
    bundle.files[1] = { ...bundle.files[1]!, size: MODEL.byteLength + 1 };
    const store = new MemoryByteStore();
    const { dl } = makeDownloader(store, hub.url);
    await expectCode(dl.downloadBundle(bundle), 'integrity');
    expect(await partsSize(store, dl.urlOf(tinyFile('onnx/model.onnx')))).toBe(0);
  });

  it('gives up on persistent 5xx after the configured retries', async () => {
    hub.setFault(MODEL_KEY, { kind: 'status', status: 503 });
    const { dl } = makeDownloader(new MemoryByteStore(), hub.url);
    await expectCode(dl.downloadBundle(tinyBundle()), 'network');
    expect(hub.log.filter((e) => e.path === modelPath).map((e) => e.status)).toEqual([503, 503, 503, 503]);
  });

  it('maps a full store to quota and keeps what was stored', async () => {
    const store = new MemoryByteStore({ quotaBytes: 200_000 });
    const { dl } = makeDownloader(store, hub.url);
    await expectCode(dl.downloadBundle(tinyBundle()), 'quota');
    expect(await store.isComplete(dl.urlOf(tinyFile('config.json')))).toBe(true);
    const held = await partsSize(store, dl.urlOf(tinyFile('onnx/model.onnx')));
    expect(held).toBeGreaterThan(0);
    expect(await store.usage()).toBeLessThanOrEqual(200_000);
  });

  it('abort mid-file keeps the parts, and the next call resumes from them', async () => {
    hub.setFault(MODEL_KEY, { kind: 'slow', delayMs: 2, chunkBytes: 8192 });
    const store = new MemoryByteStore();
    const ctrl = new AbortController();
    const { dl } = makeDownloader(store, hub.url, {
      onEvent: (e) => {
        if (e.type === 'progress' && e.path === 'onnx/model.onnx' && e.fileBytes >= 140_000) ctrl.abort();
      },
    });
    await expectCode(dl.downloadBundle(tinyBundle(), ctrl.signal), 'aborted');
    const key = dl.urlOf(tinyFile('onnx/model.onnx'));
    const held = await partsSize(store, key);
    expect(held).toBeGreaterThanOrEqual(140_000);
    expect(held).toBeLessThan(MODEL.byteLength);
    hub.setFault(MODEL_KEY, null);
    hub.clearLog();
    const again = makeDownloader(store, hub.url);
    expect((await again.dl.downloadBundle(tinyBundle())).status).toBe('complete');
    expect(hub.log.find((e) => e.path === modelPath)?.range).toBe(`bytes=${held}-`);
    expect(await digestOf(await store.read(key))).toBe(sha256Hex(MODEL));
  });

  it('deleting a bundle frees its usage', async () => {
    const store = new MemoryByteStore();
    const { dl } = makeDownloader(store, hub.url);
    await dl.downloadBundle(tinyBundle());
    const total = CONFIG.byteLength + MODEL.byteLength + DATA.byteLength;
    expect(await store.usage(`${hub.url}/${REPO}/`)).toBe(total);
    expect(await deleteBundle(tinyBundle(), store, hub.url)).toBe(total);
    expect(await store.usage()).toBe(0);
    expect((await bundleState(tinyBundle(), store, hub.url)).status).toBe('missing');
  });

  it('downloadAll goes on after a failed bundle and stops on abort', async () => {
    const store = new MemoryByteStore();
    const { dl } = makeDownloader(store, hub.url);
    const broken = tinyBundle({ id: 'broken', repo: 'test-org/nope' });
    const results = await dl.downloadAll([broken, tinyBundle()]);
    expect(results.map((r) => [r.id, r.ok, r.error?.code])).toEqual([
      ['broken', false, 'not_found'],
      ['tiny', true, undefined],
    ]);
    const ctrl = new AbortController();
    ctrl.abort();
    const aborted = await dl.downloadAll([broken, tinyBundle()], ctrl.signal);
    expect(aborted.map((r) => r.error?.code)).toEqual(['aborted']);
  });

  it('follows the hub LFS redirect to the CDN on another origin, and resumes there with Range', async () => {
    await hub.close();
    hub = await startHubServer({
      files: hubFiles(),
      redirectLfs: true,
      faults: { [MODEL_KEY]: { kind: 'drop', afterBytes: 100_000, times: 1 } },
    });
    const store = new MemoryByteStore();
    const { dl } = makeDownloader(store, hub.url);
    expect((await dl.downloadBundle(tinyBundle())).status).toBe('complete');
    expect(hub.log.filter((e) => e.status === 302).length).toBe(3);
    const cdn = hub.log.filter((e) => e.path === `/cdn/${MODEL_KEY}`);
    expect(cdn.map((e) => [e.range === null ? null : 'ranged', e.status])).toEqual([
      [null, 200],
      ['ranged', 206],
    ]);
    expect(await digestOf(await store.read(dl.urlOf(tinyFile('onnx/model.onnx'))))).toBe(sha256Hex(MODEL));
  });
});
