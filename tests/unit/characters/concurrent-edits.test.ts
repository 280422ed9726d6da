/**
 * Concurrent character edits do not lose one (docs/security.md, "What is stored"): the background makes a store per
 * request over one storage backend, and every change is a read-modify-write of the whole list. Two edits in flight at
 * once (two panels, an import during an edit) must both land. The backend here is slow to save, as chrome.storage
 * is, so without the per-backend queue the second write would carry the list the first one had not changed yet.
 */
import { describe, expect, it } from 'vitest';
import {
  SnapshotCharacterStore,
  draftChanges,
  type Character,
  type CharacterDraft,
  type CharacterSnapshot,
  type CharacterSnapshotBackend,
} from '../../../core/characters';
import { draft } from './helpers';

function slowBackend(): CharacterSnapshotBackend & { saves: number } {
  let stored: unknown;
  const backend = {
    saves: 0,
    load: async () => structuredClone(stored),
    save: async (s: CharacterSnapshot) => {
      await new Promise((r) => setTimeout(r, 5));
      stored = structuredClone(s);
      backend.saves++;
    },
  };
  return backend;
}

let t = 1_000;
let n = 0;
const storeOn = (backend: CharacterSnapshotBackend) =>
  new SnapshotCharacterStore(backend, { now: () => (t += 1_000), newId: () => `user:${++n}` });

describe('concurrent character edits', () => {
  it('two edits of two characters at once both land (stores made per request, one backend)', async () => {
    const backend = slowBackend();
    const ada = await storeOn(backend).create(draft({ name: 'Ada' }));
    const bob = await storeOn(backend).create(draft({ name: 'Bob' }));
    await Promise.all([
      storeOn(backend).update(ada.id, { persona: { ...ada.persona, style: 'Edited in panel one.' } }),
      storeOn(backend).update(bob.id, { persona: { ...bob.persona, style: 'Edited in panel two.' } }),
    ]);
    const list = await storeOn(backend).list();
    expect(list.find((c) => c.id === ada.id)!.persona.style).toBe('Edited in panel one.');
    expect(list.find((c) => c.id === bob.id)!.persona.style).toBe('Edited in panel two.');
  });

  it('two edits of one character keep both fields; a create, a delete and an active switch at once all land', async () => {
    const backend = slowBackend();
    const ada = await storeOn(backend).create(draft({ name: 'Ada' }));
    const gone = await storeOn(backend).create(draft({ name: 'Gone' }));
    await Promise.all([
      storeOn(backend).update(ada.id, { name: 'Ada Lovelace' }),
      storeOn(backend).update(ada.id, { pronunciations: [{ word: 'Ada', sayAs: 'Ay da' }] }),
      storeOn(backend).create(draft({ name: 'Cleo' })),
      storeOn(backend).delete(gone.id),
      storeOn(backend).setActive(ada.id),
    ]);
    const store = storeOn(backend);
    const mine = (await store.list()).filter((c) => !c.builtIn);
    expect(mine.map((c) => c.name).sort()).toEqual(['Ada Lovelace', 'Cleo']);
    expect(mine.find((c) => c.id === ada.id)!.pronunciations).toEqual([{ word: 'Ada', sayAs: 'Ay da' }]);
    expect((await store.getActive()).id).toBe(ada.id);
  });

  it('two editors opened on one character (two panels) save different fields: both edits are kept', async () => {
    const backend = slowBackend();
    const opened = await storeOn(backend).create(draft({ name: 'Ada' }));
    const asDraft = ({ id: _i, createdAt: _c, updatedAt: _u, builtIn: _b, ...d }: Character): CharacterDraft => d;
    // Each editor starts from the character as it was when it opened, and saves only what it changed.
    const editorA: CharacterDraft = { ...asDraft(opened), persona: { ...opened.persona, style: 'Warmer now.' } };
    const editorB: CharacterDraft = {
      ...asDraft(opened),
      name: 'Ada L.',
      persona: { ...opened.persona, greeting: 'Hello from B.' },
    };
    expect(draftChanges(opened, editorA)).toEqual({ persona: { style: 'Warmer now.' } });
    await storeOn(backend).update(opened.id, draftChanges(opened, editorA));
    await storeOn(backend).update(opened.id, draftChanges(opened, editorB));
    const saved = (await storeOn(backend).get(opened.id))!;
    expect(saved.name).toBe('Ada L.');
    expect(saved.persona).toEqual({ ...opened.persona, style: 'Warmer now.', greeting: 'Hello from B.' });
  });

  it('a failed change does not block the ones after it', async () => {
    const backend = slowBackend();
    const ada = await storeOn(backend).create(draft({ name: 'Ada' }));
    const results = await Promise.allSettled([
      storeOn(backend).update('user:missing', { name: 'X' }),
      storeOn(backend).update(ada.id, { name: 'Ada B' }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect((await storeOn(backend).get(ada.id))!.name).toBe('Ada B');
  });
});
