import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHubServer, type HubServer } from '../../fixtures/hub/server';
import { CacheStorageByteStore, PARTS_CACHE, TRANSFORMERS_CACHE } from '../../../core/weights/cache-storage-store';
import { partsSize } from '../../../core/weights/byte-store';
import { bundleState, deleteBundle } from '../../../core/weights/state';
import {
  CONFIG,
  DATA,
  MODEL,
  REPO,
  digestOf,
  fileBytes,
  hubFiles,
  makeDownloader,
  sha256Hex,
  tinyBundle,
  tinyFile,
} from './helpers';

/**
 * A small CacheStorage/Cache over Maps holding real Responses, with the spec behaviours the store depends on:
 * keys are URLs without their fragment, only http(s) is accepted, put() consumes the body (streams included) and
 * match() returns a fresh Response each time. `quotaBytes` makes put() reject like a full disk.
 */
class MapCache {
  readonly entries = new Map<string, { body: Uint8Array; init: ResponseInit }>();
  constructor(private readonly owner: MapCacheStorage) {}
  private norm(req: RequestInfo | URL): string {
    const u = new URL(typeof req === 'string' || req instanceof URL ? req.toString() : req.url);
    u.hash = '';
    return u.toString();
  }
  async put(req: RequestInfo | URL, res: Response): Promise<void> {
    const url = this.norm(req);
    if (!/^https?:$/.test(new URL(url).protocol)) throw new TypeError('Request scheme is unsupported');
    const body = new Uint8Array(await res.arrayBuffer());
    if (this.owner.quotaBytes !== undefined && this.owner.usage() + body.byteLength > this.owner.quotaBytes) {
      throw new DOMException('quota', 'QuotaExceededError');
    }
    this.entries.set(url, { body, init: { status: res.status, headers: [...res.headers] } });
  }
  async match(req: RequestInfo | URL): Promise<Response | undefined> {
    const e = this.entries.get(this.norm(req));
    return e ? new Response(e.body.slice(), e.init) : undefined;
  }
  async delete(req: RequestInfo | URL): Promise<boolean> {
    return this.entries.delete(this.norm(req));
  }
  async keys(req?: RequestInfo | URL): Promise<Request[]> {
    const only = req === undefined ? null : this.norm(req);
    return [...this.entries.keys()].filter((u) => only === null || u === only).map((u) => new Request(u));
  }
}

class MapCacheStorage {
  readonly caches = new Map<string, MapCache>();
  quotaBytes: number | undefined;
  async open(name: string): Promise<MapCache> {
    let c = this.caches.get(name);
    if (!c) this.caches.set(name, (c = new MapCache(this)));
    return c;
  }
  usage(): number {
    let n = 0;
    for (const c of this.caches.values()) for (const e of c.entries.values()) n += e.body.byteLength;
    return n;
  }
}

let hub: HubServer;
let cs: MapCacheStorage;
let store: CacheStorageByteStore;
beforeEach(async () => {
  hub = await startHubServer({ files: hubFiles() });
  cs = new MapCacheStorage();
  store = new CacheStorageByteStore(cs as unknown as CacheStorage);
});
afterEach(async () => {
  await hub.close();
});

describe('CacheStorageByteStore', () => {
  it('keeps parts apart (no fragment collisions), in order, and out of the transformers cache', async () => {
    const key = 'https://huggingface.co/o/m/resolve/main/onnx/model.onnx';
    const a = fileBytes(1000, 1);
    const b = fileBytes(500, 2);
    await store.putPart(key, 1, b);
    await store.putPart(key, 0, a);
    expect(await store.parts(key)).toEqual([
      { index: 0, size: 1000 },
      { index: 1, size: 500 },
    ]);
    const read: Uint8Array[] = [];
    for await (const c of store.readParts(key)) read.push(c);
    expect(read.map((c) => c.byteLength)).toEqual([1000, 500]);
    expect(sha256Hex(read[0]!)).toBe(sha256Hex(a));
    expect(await store.isComplete(key)).toBe(false);
    expect(cs.caches.get(TRANSFORMERS_CACHE)?.entries.size ?? 0).toBe(0);
    expect(await store.list()).toEqual([{ key, complete: false, bytes: 1500 }]);

    await store.commit(key, 'application/octet-stream');
    const res = await store.read(key);
    expect(res?.headers.get('content-length')).toBe('1500');
    const all = new Uint8Array(1500);
    all.set(a, 0);
    all.set(b, 1000);
    expect(await digestOf(res)).toBe(sha256Hex(all));
    expect(cs.caches.get(PARTS_CACHE)?.entries.size).toBe(0);
    // Exactly the URL transformers.js (env.useBrowserCache) looks up, in its cache.
    expect([...(cs.caches.get(TRANSFORMERS_CACHE)?.entries.keys() ?? [])]).toEqual([key]);
    expect(await store.usage()).toBe(1500);
    await store.delete(key);
    expect(await store.usage()).toBe(0);
  });

  it('downloads a bundle through the downloader, resumes after a restart, and deletes it', async () => {
    hub.setFault(`${REPO}/onnx/model.onnx`, { kind: 'drop', afterBytes: 200_000, times: 1 });
    const first = makeDownloader(store, hub.url, { settings: { partBytes: 64 * 1024, networkRetries: 0 } });
    await expect(first.dl.downloadBundle(tinyBundle())).rejects.toMatchObject({ code: 'network' });
    const key = first.dl.urlOf(tinyFile('onnx/model.onnx'));
    expect(await partsSize(store, key)).toBe(200_000);

    // A fresh store object over the same caches, as after the offscreen document is re-created.
    const store2 = new CacheStorageByteStore(cs as unknown as CacheStorage);
    hub.clearLog();
    const second = makeDownloader(store2, hub.url);
    expect((await second.dl.downloadBundle(tinyBundle())).status).toBe('complete');
    expect(hub.log.find((e) => e.path.endsWith('onnx/model.onnx'))?.range).toBe('bytes=200000-');
    expect(await digestOf(await store2.read(key))).toBe(sha256Hex(MODEL));
    expect(await digestOf(await store2.read(second.dl.urlOf(tinyFile('onnx/model.onnx_data'))))).toBe(sha256Hex(DATA));
    const total = CONFIG.byteLength + MODEL.byteLength + DATA.byteLength;
    expect(await store2.usage(`${hub.url}/${REPO}/`)).toBe(total);
    expect(await deleteBundle(tinyBundle(), store2, hub.url)).toBe(total);
    expect(await store2.usage()).toBe(0);
    expect((await bundleState(tinyBundle(), store2, hub.url)).status).toBe('missing');
  });

  it('surfaces a full Cache Storage as a quota error and keeps earlier parts', async () => {
    cs.quotaBytes = 150_000;
    const { dl } = makeDownloader(store, hub.url);
    await expect(dl.downloadBundle(tinyBundle())).rejects.toMatchObject({ code: 'quota' });
    expect(await store.isComplete(dl.urlOf(tinyFile('config.json')))).toBe(true);
    expect(await partsSize(store, dl.urlOf(tinyFile('onnx/model.onnx')))).toBeGreaterThan(0);
  });
});
