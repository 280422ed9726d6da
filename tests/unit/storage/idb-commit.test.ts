/**
 * Voice and avatar stores say "saved" only after the IndexedDB transaction commits (core/storage/idb-commit.ts): a
 * write whose requests succeed but whose commit aborts (a full quota) is reported as an error the user can read, and
 * nothing is kept. Runs the real stores (entrypoints/offscreen/voice-store-idb.ts, components/avatar/avatar-store.ts)
 * on a small in-memory IndexedDB that fires events in the browser's order (tests/unit/helpers/fake-idb.ts).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { committed, storageError } from '../../../core/storage/idb-commit';
import { serializeVoice, type StoredVoice } from '../../../core/tts/voice-store';
import { presetVoice } from '../../fixtures/pocket/generate';
import { createFakeIndexedDb } from '../helpers/fake-idb';

let idb: ReturnType<typeof createFakeIndexedDb>;
beforeEach(() => {
  idb = createFakeIndexedDb();
  vi.stubGlobal('indexedDB', idb.factory);
});
afterEach(() => vi.unstubAllGlobals());

const voice: StoredVoice = {
  id: 'clone-1',
  name: 'Me',
  bundleId: 'sidetalk-fixture/english_2026-04',
  createdAt: 1_700_000_000_000,
  consent: { statement: 'This is my own voice and I agree to clone it.', acceptedAt: 1_700_000_000_000 },
  synthetic: true,
  tensors: presetVoice({ name: 'x', amplitude: 0.4 }, 3),
};

describe('a store reports success only after the write commits', () => {
  it('committed(): the result waits for the transaction, and an abort after the request succeeded is an error', async () => {
    const tx = { error: null, oncomplete: null, onerror: null, onabort: null } as Record<string, unknown>;
    const req = { result: 'key-1', error: null, onsuccess: null, onerror: null } as Record<string, unknown>;
    let settled = '';
    const p = committed(tx as never, req as never, 'the voice').then(
      (r) => (settled = `ok:${String(r)}`),
      (e: Error) => (settled = `error:${e.message}`),
    );
    (req.onsuccess as () => void)();
    await Promise.resolve();
    expect(settled).toBe('');
    Object.assign(tx, { error: { name: 'QuotaExceededError', message: 'quota' } });
    (tx.onabort as () => void)();
    await p;
    expect(settled).toMatch(/^error:Not enough storage space to save the voice/);
  });

  it('the voice store: a quota abort at commit rejects with a readable error and keeps nothing', async () => {
    const { IdbVoiceStore } = await import('../../../entrypoints/offscreen/voice-store-idb');
    const store = new IdbVoiceStore('voices-test');
    expect(await store.records()).toEqual([]);
    idb.failNextCommit('voices-test');
    await expect(store.putBytes(serializeVoice(voice))).rejects.toThrow(/Not enough storage space to save the voice/);
    expect(await store.records()).toEqual([]);
    // A write that commits is kept and then listed.
    await store.putBytes(serializeVoice(voice));
    expect((await store.records()).map((r) => r.id)).toEqual(['clone-1']);
    // A rename that fails at commit is an error too, and the old name stays.
    idb.failNextCommit('voices-test');
    await expect(store.rename('clone-1', 'New name')).rejects.toThrow(/quota exceeded/);
    expect((await store.records())[0]!.name).toBe('Me');
  });

  it('the avatar store: a quota abort at commit rejects with a readable error and keeps nothing', async () => {
    const { loadUserAvatar, saveUserAvatar } = await import('../../../components/avatar/avatar-store');
    expect(await loadUserAvatar()).toBeUndefined();
    idb.failNextCommit('sidetalk-avatars');
    const avatar = { name: 'me.glb', bytes: new Uint8Array([1, 2, 3]).buffer, savedAt: 1 };
    await expect(saveUserAvatar(avatar)).rejects.toThrow(/Not enough storage space to save your avatar/);
    expect(await loadUserAvatar()).toBeUndefined();
    await saveUserAvatar(avatar);
    expect((await loadUserAvatar())?.name).toBe('me.glb');
  });

  it('other failures name what could not be saved or read', () => {
    expect(storageError('your avatar', { name: 'AbortError', message: 'Version change transaction was aborted' }).message).toBe(
      'Could not save your avatar: Version change transaction was aborted',
    );
    expect(storageError('the voice', null, 'read').message).toMatch(/^Could not read the voice/);
  });
});
