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

  private main(): Promise<Cache> {
    return this.caches.open(this.cacheName);
  }

  private partsCache(): Promise<Cache> {
    return this.caches.open(this.partsCacheName);
  }

  async putPart(key: string, index: number, bytes: Uint8Array): Promise<void> {
    const cache = await this.partsCache();
    const body = new Uint8Array(bytes); // own copy: the caller may reuse its buffer
    await cache.put(
      `${partPrefix(key)}${index}`,
      new Response(body, {
        headers: { 'Content-Type': 'application/octet-stream', [SIZE_HEADER]: String(body.byteLength) },
      }),
    );
  }

  /** Parts of `key` with their cache URLs, sorted by index. */
  private async partEntries(key: string): Promise<Array<StoredPart & { url: string }>> {
    const cache = await this.partsCache();
    const prefix = partPrefix(key);
    const out: Array<StoredPart & { url: string }> = [];
    for (const req of await cache.keys()) {
      if (!req.url.startsWith(prefix)) continue;
      const index = Number(req.url.slice(prefix.length));
      const res = await cache.match(req);
      if (!res || !Number.isInteger(index)) continue;
      out.push({ index, size: sizeOf(res), url: req.url });
    }
    return out.sort((a, b) => a.index - b.index);
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
    let i = 0;
    // Stream the parts into the final entry one at a time: a multi-GB file is never held in memory whole.
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const p = entries[i++];
        if (!p) {
          controller.close();
          return;
        }
        const res = await partsCache.match(p.url);
        if (!res) {
          controller.error(new Error('a stored part disappeared while committing'));
          return;
        }
        controller.enqueue(new Uint8Array(await res.arrayBuffer()));
      },
    });
    const main = await this.main();
    await main.put(
      key,
      new Response(body, {
        headers: { 'Content-Type': contentType, 'Content-Length': String(total), [SIZE_HEADER]: String(total) },
      }),
    );
    for (const p of entries) await partsCache.delete(p.url);
  }

  async read(key: string): Promise<Response | undefined> {
    return (await (await this.main()).match(key)) ?? undefined;
  }

  async isComplete(key: string): Promise<boolean> {
    return (await this.read(key)) !== undefined;
  }

  async deleteParts(key: string): Promise<void> {
    const cache = await this.partsCache();
    for (const p of await this.partEntries(key)) await cache.delete(p.url);
  }

  async delete(key: string): Promise<void> {
    await (await this.main()).delete(key);
    await this.deleteParts(key);
  }

  async list(): Promise<StoredEntry[]> {
    const out: StoredEntry[] = [];
    const main = await this.main();
    for (const req of await main.keys()) {
      const res = await main.match(req);
      if (res) out.push({ key: req.url, complete: true, bytes: sizeOf(res) });
    }
    const partial = new Map<string, number>();
    const parts = await this.partsCache();
    for (const req of await parts.keys()) {
      if (!req.url.startsWith(PART_ORIGIN)) continue;
      const rest = req.url.slice(PART_ORIGIN.length);
      const key = decodeURIComponent(rest.slice(0, rest.lastIndexOf('/')));
      const res = await parts.match(req);
      partial.set(key, (partial.get(key) ?? 0) + (res ? sizeOf(res) : 0));
    }
    for (const [key, bytes] of partial) out.push({ key, complete: false, bytes });
    return out;
  }

  async usage(prefix = ''): Promise<number> {
    return (await this.list()).filter((e) => e.key.startsWith(prefix)).reduce((s, e) => s + e.bytes, 0);
  }
}
