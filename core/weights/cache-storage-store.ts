// ByteStore on the standard Cache Storage API (passed in: `caches` of the offscreen document, or a test double).
// Complete files live in transformers.js' own cache ('transformers-cache'), keyed by the exact file URL, so
// `env.useBrowserCache` finds them with no custom glue. Unverified parts live in a separate cache so transformers.js
// can never pick up half a file. Part keys use a path, not a '#fragment': Cache matching ignores fragments, so
// `url#part=1` and `url#part=2` would overwrite each other.
import type { ByteStore, StoredEntry, StoredPart } from './byte-store';

export const TRANSFORMERS_CACHE = 'transformers-cache';
export const PARTS_CACHE = 'sidetalk-weight-parts';
const PART_ORIGIN = 'https://sidetalk-parts.invalid/';
const SIZE_HEADER = 'X-Sidetalk-Size';

export interface CacheStorageStoreOptions {
  cacheName?: string;
  partsCacheName?: string;
}

function partPrefix(key: string): string {
  return `${PART_ORIGIN}${encodeURIComponent(key)}/`;
}

function sizeOf(res: Response): number {
  return Number(res.headers.get(SIZE_HEADER) ?? res.headers.get('Content-Length') ?? 0);
}

/**
 * Headers of a cached entry without keeping its body open. Chromium holds a handle for every unread response body;
 * leaving them open while scanning many entries stalled later cache reads (seen in the extension, not in Node).
 */
async function peek(cache: Cache, request: RequestInfo): Promise<Response | undefined> {
  const res = await cache.match(request);
  await res?.body?.cancel().catch(() => undefined);
  return res ?? undefined;
}

interface StoreIndex {
  /** URLs of complete files (as Request.url normalises them). */
  complete: Set<string>;
  parts: Map<string, Array<StoredPart & { url: string }>>;
}

export class CacheStorageByteStore implements ByteStore {
  private readonly cacheName: string;
  private readonly partsCacheName: string;

  constructor(
    private readonly caches: CacheStorage,
    options: CacheStorageStoreOptions = {},
  ) {
    this.cacheName = options.cacheName ?? TRANSFORMERS_CACHE;
    this.partsCacheName = options.partsCacheName ?? PARTS_CACHE;
  }

  private mainCache: Promise<Cache> | null = null;
  private partsCacheP: Promise<Cache> | null = null;
  private indexP: Promise<StoreIndex> | null = null;

  private main(): Promise<Cache> {
    return (this.mainCache ??= this.caches.open(this.cacheName));
  }

  private partsCache(): Promise<Cache> {
    return (this.partsCacheP ??= this.caches.open(this.partsCacheName));
  }

  /**
   * What is stored, read with one keys() per cache and then kept up to date by this store's own writes. Each Cache
   * Storage call costs a round trip to the browser's storage process and grew slow with large entries in Chromium
   * (a state snapshot of four bundles took tens of seconds), so questions are answered from memory.
   */
  private index(): Promise<StoreIndex> {
    this.indexP ??= (async () => {
      const complete = new Set((await (await this.main()).keys()).map((r) => r.url));
      const parts = new Map<string, Array<StoredPart & { url: string }>>();
      for (const req of await (await this.partsCache()).keys()) {
        if (!req.url.startsWith(PART_ORIGIN)) continue;
        const rest = req.url.slice(PART_ORIGIN.length);
        const slash = rest.lastIndexOf('/');
        const m = /^(\d+)-(\d+)$/.exec(rest.slice(slash + 1));
        if (!m) continue;
        const key = decodeURIComponent(rest.slice(0, slash));
        const list = parts.get(key) ?? [];
        list.push({ index: Number(m[1]), size: Number(m[2]), url: req.url });
        parts.set(key, list);
      }
      for (const list of parts.values()) list.sort((a, b) => a.index - b.index);
      return { complete, parts };
    })();
    return this.indexP;
  }

  async putPart(key: string, index: number, bytes: Uint8Array): Promise<void> {
    const cache = await this.partsCache();
    const body = new Uint8Array(bytes); // own copy: the caller may reuse its buffer
    const url = `${partPrefix(key)}${index}-${body.byteLength}`;
    await cache.put(
      url,
      new Response(body, {
        headers: { 'Content-Type': 'application/octet-stream', [SIZE_HEADER]: String(body.byteLength) },
      }),
    );
    const idx = await this.index();
    const list = (idx.parts.get(key) ?? []).filter((p) => p.index !== index);
    list.push({ index, size: body.byteLength, url });
    idx.parts.set(
      key,
      list.sort((a, b) => a.index - b.index),
    );
  }

  /** Parts of `key` with their cache URLs, sorted by index. */
  private async partEntries(key: string): Promise<Array<StoredPart & { url: string }>> {
    return [...((await this.index()).parts.get(key) ?? [])];
  }

  async parts(key: string): Promise<StoredPart[]> {
    return (await this.partEntries(key)).map(({ index, size }) => ({ index, size }));
  }

  async *readParts(key: string): AsyncIterable<Uint8Array> {
    const cache = await this.partsCache();
    for (const p of await this.partEntries(key)) {
      const res = await cache.match(p.url);
      if (!res) throw new Error('a stored part disappeared while reading');
      yield new Uint8Array(await res.arrayBuffer());
    }
  }

  async commit(key: string, contentType: string): Promise<void> {
    const entries = await this.partEntries(key);
    const total = entries.reduce((s, p) => s + p.size, 0);
    const partsCache = await this.partsCache();
    // Blobs from Cache Storage are disk-backed references and `new Blob([...])` concatenates them lazily, so a
    // multi-GB file is never held in memory whole. (A ReadableStream body stalled Cache.put in Chromium.)
    const blobs: Blob[] = [];
    for (const p of entries) {
      const res = await partsCache.match(p.url);
      if (!res) throw new Error('a stored part disappeared while committing');
      blobs.push(await res.blob());
    }
    const body = new Blob(blobs, { type: contentType });
    const main = await this.main();
    await main.put(
      key,
      new Response(body, {
        headers: { 'Content-Type': contentType, 'Content-Length': String(total), [SIZE_HEADER]: String(total) },
      }),
    );
    const idx = await this.index();
    idx.complete.add(new Request(key).url);
    for (const p of entries) await partsCache.delete(p.url);
    idx.parts.delete(key);
  }

  async read(key: string): Promise<Response | undefined> {
    return (await (await this.main()).match(key)) ?? undefined;
  }

  async isComplete(key: string): Promise<boolean> {
    return (await (await this.main()).keys(key)).length > 0;
  }

  async deleteParts(key: string): Promise<void> {
    const cache = await this.partsCache();
    for (const p of await this.partEntries(key)) await cache.delete(p.url);
    // Keep the in-memory index in step: a stale entry made the next attempt "resume" past the end of the file
    // (416 → reported as a network error) after an integrity failure, and after deleting a partial download.
    (await this.index()).parts.delete(key);
  }

  async delete(key: string): Promise<void> {
    await (await this.main()).delete(key);
    (await this.index()).complete.delete(new Request(key).url);
    await this.deleteParts(key);
  }

  async list(): Promise<StoredEntry[]> {
    const out: StoredEntry[] = [];
    const main = await this.main();
    for (const req of await main.keys()) {
      const res = await peek(main, req);
      if (res) out.push({ key: req.url, complete: true, bytes: sizeOf(res) });
    }
    const partial = new Map<string, number>();
    for (const [key, list] of (await this.index()).parts)
      partial.set(
        key,
        list.reduce((sum, p) => sum + p.size, 0),
      );
    for (const [key, bytes] of partial) out.push({ key, complete: false, bytes });
    return out;
  }

  async usage(prefix = ''): Promise<number> {
    return (await this.list()).filter((e) => e.key.startsWith(prefix)).reduce((s, e) => s + e.bytes, 0);
  }
}
