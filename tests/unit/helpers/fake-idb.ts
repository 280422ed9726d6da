/**
 * A small in-memory IndexedDB for the stores' unit tests (no IndexedDB in Node): one object store per database,
 * requests and transactions fire their events asynchronously in the browser's order (request success, then the
 * transaction's complete). `failNextCommit` makes the next readwrite transaction abort at commit with an error
 * (QuotaExceededError by default) after its requests succeeded, which is what a full quota does in Chrome.
 */
type Listener = (() => unknown) | null;

interface FakeError {
  name: string;
  message: string;
}

class FakeRequest<T> {
  result!: T;
  error: FakeError | null = null;
  onsuccess: Listener = null;
  onerror: Listener = null;
}

class FakeTransaction {
  error: FakeError | null = null;
  oncomplete: Listener = null;
  onerror: Listener = null;
  onabort: Listener = null;
  private readonly pending: (() => void)[] = [];
  /** Writes go to a copy that replaces the store only when the transaction commits. */
  private readonly staged: Map<unknown, unknown>;
  constructor(
    private readonly db: FakeDb,
    private readonly name: string,
    private readonly mode: string,
  ) {
    const data = db.stores.get(name)!;
    this.staged = mode === 'readwrite' ? new Map(data) : data;
    setTimeout(() => this.finish(), 0);
  }

  objectStore(name: string) {
    const staged = this.staged;
    const req = <T>(fn: () => T): FakeRequest<T> => {
      const r = new FakeRequest<T>();
      this.pending.push(() => {
        r.result = fn();
        r.onsuccess?.();
      });
      return r;
    };
    const keyOf = (value: unknown, key?: unknown) => key ?? (value as Record<string, unknown>)[this.db.keyPath(name)!];
    return {
      put: (value: unknown, key?: unknown) =>
        req(() => (staged.set(keyOf(value, key), structuredClone(value)), keyOf(value, key))),
      get: (key: unknown) => req(() => structuredClone(staged.get(key))),
      getAll: () => req(() => [...staged.values()].map((v) => structuredClone(v))),
      count: (key: unknown) => req(() => (staged.has(key) ? 1 : 0)),
      delete: (key: unknown) => req(() => (staged.delete(key), undefined)),
    };
  }

  private finish(): void {
    for (const run of this.pending.splice(0)) run();
    setTimeout(() => {
      const fail = this.mode === 'readwrite' ? this.db.takeCommitFailure() : null;
      if (fail) {
        this.error = fail;
        this.onabort?.();
        return;
      }
      if (this.mode === 'readwrite') this.db.stores.set(this.name, this.staged);
      this.oncomplete?.();
    }, 0);
  }
}

class FakeDb {
  readonly stores = new Map<string, Map<unknown, unknown>>();
  private readonly keyPaths = new Map<string, string | undefined>();
  private commitFailure: FakeError | null = null;

  createObjectStore(name: string, options?: { keyPath?: string }) {
    this.stores.set(name, new Map());
    this.keyPaths.set(name, options?.keyPath);
  }

  keyPath(name: string) {
    return this.keyPaths.get(name);
  }

  transaction(name: string, mode: string) {
    return new FakeTransaction(this, name, mode);
  }

  failNextCommit(error: FakeError) {
    this.commitFailure = error;
  }

  takeCommitFailure(): FakeError | null {
    const f = this.commitFailure;
    this.commitFailure = null;
    return f;
  }

  close() {}
}

export function createFakeIndexedDb() {
  const dbs = new Map<string, FakeDb>();
  const factory = {
    open(name: string) {
      const req = new FakeRequest<FakeDb>() as FakeRequest<FakeDb> & { onupgradeneeded: Listener };
      req.onupgradeneeded = null;
      setTimeout(() => {
        let db = dbs.get(name);
        req.result = db ?? new FakeDb();
        if (!db) {
          db = req.result;
          dbs.set(name, db);
          req.onupgradeneeded?.();
        }
        req.onsuccess?.();
      }, 0);
      return req;
    },
  };
  return {
    factory: factory as unknown as IDBFactory,
    db: (name: string) => dbs.get(name),
    /** The next readwrite transaction on `name` aborts at commit with `error`. */
    failNextCommit(name: string, error: FakeError = { name: 'QuotaExceededError', message: 'The quota has been exceeded.' }) {
      dbs.get(name)!.failNextCommit(error);
    },
  };
}
