/**
 * Cloned voices in IndexedDB, in the offscreen document (the extension's origin, so they survive restarts).
 */
import { committed } from '../../core/storage/idb-commit';
import { deserializeVoice, serializeVoice, type StoredVoice, type VoiceStore } from '../../core/tts/voice-store';

const DB_NAME = 'sidetalk-voices';
const STORE = 'clones';

/** One clone as stored: the serialized voice file (STVOICE, consent inside) plus the fields the list shows. */
export interface CloneRecord {
  id: string;
  name: string;
  bundleId: string;
  createdAt: number;
  consentStatement: string;
  bytes: ArrayBuffer;
}

/**
 * Cloned voices in IndexedDB (the offscreen document's origin is the extension's, so they survive restarts). The
 * bytes are exactly `serializeVoice`'s output and are re-validated by `deserializeVoice` on every read.
 */
export class IdbVoiceStore implements VoiceStore {
  private db: Promise<IDBDatabase> | null = null;

  constructor(private readonly name = DB_NAME) {}

  private open(): Promise<IDBDatabase> {
    this.db ??= new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open(this.name, 1);
      req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: 'id' });
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error ?? new Error('could not open the voice store'));
    }).catch((err: unknown) => {
      this.db = null;
      throw err;
    });
    return this.db;
  }

  /** The request's result once its transaction has committed (a quota error at the commit is reported, not lost). */
  private async tx<T>(mode: IDBTransactionMode, run: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
    const db = await this.open();
    const tx = db.transaction(STORE, mode);
    return committed(tx, run(tx.objectStore(STORE)), 'the voice', mode === 'readonly' ? 'read' : 'save');
  }

  async records(): Promise<CloneRecord[]> {
    const all = await this.tx('readonly', (s) => s.getAll() as IDBRequest<CloneRecord[]>);
    return all.sort((a, b) => a.createdAt - b.createdAt);
  }

  async list(bundleId?: string) {
    return (await this.records())
      .filter((r) => bundleId === undefined || r.bundleId === bundleId)
      .map(({ bytes, ...meta }) => {
        const { tensors: _t, ...voice } = deserializeVoice(bytes);
        return { ...voice, name: meta.name };
      });
  }

  async record(id: string): Promise<CloneRecord | undefined> {
    return this.tx('readonly', (s) => s.get(id) as IDBRequest<CloneRecord | undefined>);
  }

  async get(id: string): Promise<StoredVoice | undefined> {
    const r = await this.record(id);
    return r ? deserializeVoice(r.bytes) : undefined;
  }

  async put(voice: StoredVoice): Promise<void> {
    await this.putBytes(serializeVoice(voice));
  }

  /** Validates the bytes (a voice file is refused whole, never half-stored) and stores them. */
  async putBytes(bytes: Uint8Array): Promise<CloneRecord> {
    const voice = deserializeVoice(bytes);
    const record: CloneRecord = {
      id: voice.id,
      name: voice.name,
      bundleId: voice.bundleId,
      createdAt: voice.createdAt,
      consentStatement: voice.consent.statement,
      bytes: bytes.slice().buffer,
    };
    await this.tx('readwrite', (s) => s.put(record));
    return record;
  }

  /** The name lives in the voice file's header too, so the file is rewritten (an export carries the new name). */
  async rename(id: string, name: string): Promise<CloneRecord | undefined> {
    const voice = await this.get(id);
    if (!voice) return undefined;
    return this.putBytes(serializeVoice({ ...voice, name }));
  }

  async delete(id: string): Promise<boolean> {
    const had = (await this.tx('readonly', (s) => s.count(id))) > 0;
    await this.tx('readwrite', (s) => s.delete(id));
    return had;
  }
}
