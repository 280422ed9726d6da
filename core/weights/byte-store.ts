// Where downloaded bytes live. A file is either a list of unverified parts (numbered from 0, appended in order, so a
// restarted downloader resumes from their total size) or one verified, complete entry under its URL. Keeping parts
// separate means an interrupted multi-GB download never rewrites what it already has; assembling happens once, after
// the integrity check, so nothing readable by the model loader is ever unverified.

export interface StoredPart {
  index: number;
  size: number;
}

export interface StoredEntry {
  key: string;
  complete: boolean;
  /** Bytes held: the complete entry's size, or the parts' total. */
  bytes: number;
}

export interface ByteStore {
  /** Stores part `index` of `key`. Rejects with a DOMException named 'QuotaExceededError' when full. */
  putPart(key: string, index: number, bytes: Uint8Array): Promise<void>;
  /** Parts held for `key`, sorted by index (empty when none). */
  parts(key: string): Promise<StoredPart[]>;
  /** The parts' bytes in order, as a stream of chunks (never the whole file at once). */
  readParts(key: string): AsyncIterable<Uint8Array>;
  /** Assembles the parts into the complete entry `key` and drops the parts. Only call after verification. */
  commit(key: string, contentType: string): Promise<void>;
  /** The complete entry as a Response (what transformers.js' cache returns), or undefined. */
  read(key: string): Promise<Response | undefined>;
  isComplete(key: string): Promise<boolean>;
  /** Deletes the complete entry and every part of `key`. */
  delete(key: string): Promise<void>;
  /** Drops only the parts of `key` (restart from byte 0). */
  deleteParts(key: string): Promise<void>;
  list(): Promise<StoredEntry[]>;
  /** Total bytes held, optionally only for keys starting with `prefix`. */
  usage(prefix?: string): Promise<number>;
}

export async function partsSize(store: ByteStore, key: string): Promise<number> {
  return (await store.parts(key)).reduce((s, p) => s + p.size, 0);
}

function quotaError(): Error {
  return new DOMException('The quota has been exceeded.', 'QuotaExceededError');
}

/** In-memory store for tests and Node tools; `quotaBytes` simulates a full disk. */
export class MemoryByteStore implements ByteStore {
  private readonly partMap = new Map<string, Map<number, Uint8Array>>();
  private readonly complete = new Map<string, { bytes: Uint8Array; contentType: string }>();

  constructor(private readonly options: { quotaBytes?: number } = {}) {}

  async putPart(key: string, index: number, bytes: Uint8Array): Promise<void> {
    if (this.options.quotaBytes !== undefined && (await this.usage()) + bytes.byteLength > this.options.quotaBytes) {
      throw quotaError();
    }
    let m = this.partMap.get(key);
    if (!m) this.partMap.set(key, (m = new Map()));
    m.set(index, bytes.slice());
  }

  async parts(key: string): Promise<StoredPart[]> {
    const m = this.partMap.get(key);
    if (!m) return [];
    return [...m.entries()].sort((a, b) => a[0] - b[0]).map(([index, b]) => ({ index, size: b.byteLength }));
  }

  async *readParts(key: string): AsyncIterable<Uint8Array> {
    const m = this.partMap.get(key);
    if (!m) return;
    for (const index of [...m.keys()].sort((a, b) => a - b)) yield m.get(index) as Uint8Array;
  }

  async commit(key: string, contentType: string): Promise<void> {
    const chunks: Uint8Array[] = [];
    for await (const c of this.readParts(key)) chunks.push(c);
    const total = chunks.reduce((s, c) => s + c.byteLength, 0);
    const bytes = new Uint8Array(total);
    let off = 0;
    for (const c of chunks) {
      bytes.set(c, off);
      off += c.byteLength;
    }
    this.complete.set(key, { bytes, contentType });
    this.partMap.delete(key);
  }

  async read(key: string): Promise<Response | undefined> {
    const e = this.complete.get(key);
    if (!e) return undefined;
    return new Response(e.bytes.slice(), {
      headers: { 'Content-Type': e.contentType, 'Content-Length': String(e.bytes.byteLength) },
    });
  }

  async isComplete(key: string): Promise<boolean> {
    return this.complete.has(key);
  }

  async delete(key: string): Promise<void> {
    this.complete.delete(key);
    this.partMap.delete(key);
  }

  async deleteParts(key: string): Promise<void> {
    this.partMap.delete(key);
  }

  async list(): Promise<StoredEntry[]> {
    const out: StoredEntry[] = [];
    for (const [key, e] of this.complete) out.push({ key, complete: true, bytes: e.bytes.byteLength });
    for (const [key, m] of this.partMap) {
      out.push({ key, complete: false, bytes: [...m.values()].reduce((s, b) => s + b.byteLength, 0) });
    }
    return out;
  }

  async usage(prefix = ''): Promise<number> {
    return (await this.list()).filter((e) => e.key.startsWith(prefix)).reduce((s, e) => s + e.bytes, 0);
  }
}
