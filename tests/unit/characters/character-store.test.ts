import { describe, expect, it } from 'vitest';
import {
  BUILT_IN_CHARACTERS,
  CharacterError,
  DEFAULT_CHARACTER_ID,
  SnapshotCharacterStore,
  memoryBackend,
} from '../../../core/characters';
import { draft, makeStore } from './helpers';

describe('built-in characters', () => {
  it('ships at least two distinct characters (persona, voice, greeting)', () => {
    expect(BUILT_IN_CHARACTERS.length).toBeGreaterThanOrEqual(2);
    const [a, b] = BUILT_IN_CHARACTERS;
    expect(a!.persona.name).not.toBe(b!.persona.name);
    expect(a!.persona.style).not.toBe(b!.persona.style);
    expect(a!.persona.greeting).not.toBe(b!.persona.greeting);
    expect(a!.voice).not.toEqual(b!.voice);
    expect(BUILT_IN_CHARACTERS.every((c) => c.builtIn)).toBe(true);
  });
});

describe('CharacterStore', () => {
  it('starts with the built-ins and the default active', async () => {
    const store = makeStore();
    expect((await store.list()).map((c) => c.id)).toEqual(BUILT_IN_CHARACTERS.map((c) => c.id));
    expect((await store.getActive()).id).toBe(DEFAULT_CHARACTER_ID);
  });

  it('creates, edits and switches to a character', async () => {
    const store = makeStore();
    const c = await store.create(draft());
    expect(c).toMatchObject({ id: 'user:1', name: 'Ada', builtIn: false, createdAt: 2_000, updatedAt: 2_000 });
    const edited = await store.update(c.id, { persona: { name: 'Ada', style: 'Warmer.', greeting: 'Hello!' } });
    expect(edited.persona.greeting).toBe('Hello!');
    expect(edited.updatedAt).toBeGreaterThan(edited.createdAt);
    expect(edited.pronunciations).toEqual(c.pronunciations);
    await store.setActive(c.id);
    expect((await store.getActive()).persona.greeting).toBe('Hello!');
  });

  it('rejects invalid drafts with a readable message and changes nothing', async () => {
    const store = makeStore();
    await expect(store.create(draft({ name: '   ' }))).rejects.toThrow(/name/);
    await expect(store.create(draft({ voice: { kind: 'builtin', voiceId: '../../etc' } }))).rejects.toBeInstanceOf(
      CharacterError,
    );
    expect(await store.list()).toHaveLength(BUILT_IN_CHARACTERS.length);
  });

  it('built-ins cannot be edited or deleted, only duplicated', async () => {
    const store = makeStore();
    await expect(store.update(DEFAULT_CHARACTER_ID, { name: 'Mine' })).rejects.toMatchObject({ code: 'built_in' });
    await expect(store.delete(DEFAULT_CHARACTER_ID)).rejects.toMatchObject({ code: 'built_in' });
    const copy = await store.duplicate(DEFAULT_CHARACTER_ID);
    expect(copy).toMatchObject({ name: 'Sidetalk copy', builtIn: false, voice: BUILT_IN_CHARACTERS[0]!.voice });
    expect(copy.id).not.toBe(DEFAULT_CHARACTER_ID);
    const renamed = await store.update(copy.id, { name: 'Mine' });
    expect(renamed.name).toBe('Mine');
    expect((await store.get(DEFAULT_CHARACTER_ID))!.name).toBe('Sidetalk');
  });

  it('duplicating twice gives distinct names; renaming onto a taken name is made unique', async () => {
    const store = makeStore();
    const a = await store.duplicate('builtin:marius');
    const b = await store.duplicate('builtin:marius');
    expect([a.name, b.name]).toEqual(['Professor Marius copy', 'Professor Marius copy (2)']);
    expect((await store.update(b.id, { name: 'sidetalk' })).name).toBe('sidetalk (2)');
  });

  it('deleting the active character makes the default active; deleting twice is not_found', async () => {
    const store = makeStore();
    const c = await store.create(draft());
    await store.setActive(c.id);
    await store.delete(c.id);
    expect((await store.getActive()).id).toBe(DEFAULT_CHARACTER_ID);
    await expect(store.delete(c.id)).rejects.toMatchObject({ code: 'not_found' });
    await expect(store.setActive('user:nope')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('returns copies: mutating a result does not change the store', async () => {
    const store = makeStore();
    const c = await store.create(draft());
    c.persona.name = 'Hacked';
    (await store.list())[0]!.name = 'Hacked';
    expect((await store.get(c.id))!.persona.name).toBe('Ada');
    expect(BUILT_IN_CHARACTERS[0]!.name).toBe('Sidetalk');
  });

  it('survives damaged storage: keeps valid characters, drops the rest, falls back to the default', async () => {
    const good = { ...draft(), id: 'user:ok', createdAt: 1, updatedAt: 1, builtIn: false };
    const backend = memoryBackend();
    await backend.save({
      characters: [good, { id: 'user:bad', name: 42 } as never, { ...good, id: DEFAULT_CHARACTER_ID } as never],
      activeId: 'user:bad',
    });
    const store = new SnapshotCharacterStore(backend, { now: () => 5 });
    expect((await store.list()).map((c) => c.id)).toEqual([...BUILT_IN_CHARACTERS.map((c) => c.id), 'user:ok']);
    expect((await store.getActive()).id).toBe(DEFAULT_CHARACTER_ID);
    expect((await store.get(DEFAULT_CHARACTER_ID))!.builtIn).toBe(true);
  });
});
