/**
 * The user's own avatar (a GLB they chose), kept in IndexedDB of the extension origin so it survives restarts and
 * never leaves the computer. One slot: the user avatar; the generated default ships with the extension.
 */
const DB = 'sidetalk-avatars';
const STORE = 'avatars';
const USER_KEY = 'user';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('could not open the avatar store'));
  });
}

async function run<T>(mode: IDBTransactionMode, op: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const req = op(db.transaction(STORE, mode).objectStore(STORE));
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error ?? new Error('avatar store request failed'));
    });
  } finally {
    db.close();
  }
}

export interface StoredAvatar {
  name: string;
  bytes: ArrayBuffer;
  savedAt: number;
}

export const loadUserAvatar = (): Promise<StoredAvatar | undefined> =>
  run('readonly', (s) => s.get(USER_KEY) as IDBRequest<StoredAvatar | undefined>);
export const saveUserAvatar = (avatar: StoredAvatar): Promise<IDBValidKey> => run('readwrite', (s) => s.put(avatar, USER_KEY));
export const deleteUserAvatar = (): Promise<undefined> => run('readwrite', (s) => s.delete(USER_KEY));
