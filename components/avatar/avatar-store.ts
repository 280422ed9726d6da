/**
 * The user's own avatar (a GLB they chose), kept in IndexedDB of the extension origin so it survives restarts and
 * never leaves the computer. One slot: the user avatar; the generated default ships with the extension.
 */
import { committed } from '../../core/storage/idb-commit';

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

/** The request's result once its transaction has committed: "saved" means saved (a quota error is reported). */
async function run<T>(mode: IDBTransactionMode, op: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await open();
  try {
    const tx = db.transaction(STORE, mode);
    return await committed(tx, op(tx.objectStore(STORE)), 'your avatar', mode === 'readonly' ? 'read' : 'save');
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
