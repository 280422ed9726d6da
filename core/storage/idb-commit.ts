// IndexedDB reports a request's success before its transaction commits, and a write can still fail at the commit:
// a full disk or quota aborts the transaction after every request succeeded. So a store says "saved" only when the
// transaction completes, and a failed commit becomes a sentence the user can act on (docs/security.md, "What is
// stored"). Structural types keep this file free of DOM globals; the stores pass the real objects.

/** The parts of an IDBRequest this needs. */
export interface IdbRequestLike<T> {
  readonly result: T;
  readonly error: { name: string; message: string } | null;
  onsuccess: ((this: never, ev: never) => unknown) | null;
  onerror: ((this: never, ev: never) => unknown) | null;
}

/** The parts of an IDBTransaction this needs. */
export interface IdbTransactionLike {
  readonly error: { name: string; message: string } | null;
  oncomplete: ((this: never, ev: never) => unknown) | null;
  onerror: ((this: never, ev: never) => unknown) | null;
  onabort: ((this: never, ev: never) => unknown) | null;
}

/** A failed write as the user reads it; `what` is e.g. "the voice" or "your avatar". */
export function storageError(
  what: string,
  err: { name?: string; message?: string } | null | undefined,
  action: 'save' | 'read' = 'save',
): Error {
  if (err?.name === 'QuotaExceededError') {
    return new Error(
      `Not enough storage space to save ${what}: the browser refused the write (quota exceeded). ` +
        'Free some disk space or delete models you do not use, then try again.',
    );
  }
  const detail = (err?.message ?? '').slice(0, 200);
  return new Error(`Could not ${action} ${what}${detail ? `: ${detail}` : ' (the browser aborted it).'}`);
}

/**
 * The request's result once its transaction has committed; rejects with `storageError` when the request fails or
 * the transaction aborts (quota, disk full, another tab closing the database).
 */
export function committed<T>(
  tx: IdbTransactionLike,
  req: IdbRequestLike<T>,
  what: string,
  action: 'save' | 'read' = 'save',
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let result: T | undefined;
    let settled = false;
    const fail = (err: { name?: string; message?: string } | null) => {
      if (settled) return;
      settled = true;
      reject(storageError(what, err, action));
    };
    req.onsuccess = () => {
      result = req.result;
    };
    req.onerror = () => fail(req.error);
    tx.onerror = () => fail(tx.error ?? req.error);
    tx.onabort = () => fail(tx.error ?? req.error);
    tx.oncomplete = () => {
      if (settled) return;
      settled = true;
      resolve(result as T);
    };
  });
}
