import { describe, expect, it } from 'vitest';
import { BUILT_IN_CHARACTERS, serializeCharacters, type Character } from '../../../core/characters';
import type { EventMessage } from '../../../core/protocol';
import { CHARACTERS_KEY, createCharacterHandlers } from '../../../entrypoints/background/characters';
import { FakeArea, fakeSend } from './fakes';

function setup() {
  const area = new FakeArea();
  const events: EventMessage[] = [];
  const { sent, send } = fakeSend();
  let id = 0;
  let t = 1_700_000_000_000;
  const handlers = createCharacterHandlers({ area, broadcast: (e) => events.push(e), send, now: () => (t += 1000) });
  return { area, events, sent, handlers, nextId: () => `user:${++id}` };
}

const draft = (name: string) => ({
  name,
  avatar: { kind: 'default' as const },
  voice: { kind: 'builtin' as const, voiceId: 'marius' },
  persona: { name, style: 'Dry wit.', greeting: `Hello, ${name} here.` },
  pronunciations: [{ word: 'Ada', sayAs: 'Ay da' }],
});

describe('characters in chrome.storage.local (background)', () => {
  it('lists the built-ins with the default active before anything is stored', async () => {
    const { handlers } = setup();
    const list = await handlers['characters/list']({});
    expect(list.characters.map((c) => c.id)).toEqual(BUILT_IN_CHARACTERS.map((c) => c.id));
    expect(list.activeId).toBe('builtin:sidetalk');
    expect((await handlers['characters/get-active']({})).id).toBe('builtin:sidetalk');
  });

  it('creates, updates, duplicates and deletes, persisting one snapshot and broadcasting each change', async () => {
    const { area, events, handlers } = setup();
    const ada = await handlers['characters/create']({ draft: draft('Ada') });
    expect(ada).toMatchObject({ name: 'Ada', builtIn: false });
    const stored = area.data[CHARACTERS_KEY] as { characters: Character[]; activeId: string };
    expect(stored.characters.map((c) => c.name)).toEqual(['Ada']);
    expect(stored.activeId).toBe('builtin:sidetalk');

    const renamed = await handlers['characters/update']({ id: ada.id, patch: { name: 'Ada L.' } });
    expect(renamed.name).toBe('Ada L.');
    const copy = await handlers['characters/duplicate']({ id: 'builtin:marius' });
    expect(copy.name).toBe('Professor Marius copy');
    await handlers['characters/delete']({ id: ada.id });
    const list = await handlers['characters/list']({});
    expect(list.characters.map((c) => c.name)).toEqual(['Sidetalk', 'Professor Marius', 'Professor Marius copy']);
    expect(events.map((e) => e.type)).toEqual(Array(4).fill('event/characters'));
    const last = events.at(-1)!;
    expect(last.type === 'event/characters' && last.payload.characters.length).toBe(3);
  });

  it('refuses to edit or delete a built-in with the store’s sentence', async () => {
    const { handlers } = setup();
    await expect(handlers['characters/update']({ id: 'builtin:marius', patch: { name: 'X' } })).rejects.toThrow(
      /can’t be edited/,
    );
    await expect(handlers['characters/delete']({ id: 'builtin:sidetalk' })).rejects.toThrow(/can’t be deleted/);
    await expect(handlers['characters/set-active']({ id: 'user:nope' })).rejects.toThrow(/no longer exists/);
  });

  it('set-active persists, broadcasts, and pushes the character to the conversation (with the greet flag)', async () => {
    const { area, sent, events, handlers } = setup();
    const c = await handlers['characters/set-active']({ id: 'builtin:marius', greet: true });
    expect(c.id).toBe('builtin:marius');
    expect((area.data[CHARACTERS_KEY] as { activeId: string }).activeId).toBe('builtin:marius');
    expect(events.at(-1)).toMatchObject({ type: 'event/characters', payload: { activeId: 'builtin:marius' } });
    expect(sent).toEqual([
      expect.objectContaining({
        type: 'conversation/character',
        payload: { character: expect.objectContaining({ id: 'builtin:marius' }), greet: true },
      }),
    ]);
  });

  it('editing the active character updates the conversation without a greeting; deleting it falls back to the default', async () => {
    const { sent, handlers } = setup();
    const ada = await handlers['characters/create']({ draft: draft('Ada') });
    await handlers['characters/set-active']({ id: ada.id });
    sent.length = 0;
    await handlers['characters/update']({ id: ada.id, patch: { persona: { name: 'Ada', style: '', greeting: 'Hi.' } } });
    expect(sent[0]).toMatchObject({ type: 'conversation/character', payload: { greet: false, character: { id: ada.id } } });
    await handlers['characters/delete']({ id: ada.id });
    expect(sent[1]).toMatchObject({ type: 'conversation/character', payload: { character: { id: 'builtin:sidetalk' } } });
    expect((await handlers['characters/get-active']({})).id).toBe('builtin:sidetalk');
  });

  it('a missing offscreen document is not an error', async () => {
    const area = new FakeArea();
    const { send } = fakeSend(() => undefined);
    const handlers = createCharacterHandlers({ area, broadcast: () => undefined, send });
    await expect(handlers['characters/set-active']({ id: 'builtin:marius' })).resolves.toMatchObject({ id: 'builtin:marius' });
  });

  it('exports one character with a safe file name, or all of the user’s', async () => {
    const { handlers } = setup();
    const ada = await handlers['characters/create']({
      draft: { ...draft('Ada <script>'), persona: { name: 'Ada', style: '', greeting: '' } },
    });
    const one = await handlers['characters/export']({ ids: [ada.id] });
    expect(one.fileName).toMatch(/^sidetalk-Ada-script-\d{4}-\d{2}-\d{2}\.json$/);
    expect(JSON.parse(one.text)).toMatchObject({
      format: 'sidetalk.characters',
      version: 1,
      characters: [{ name: 'Ada <script>' }],
    });
    const all = await handlers['characters/export']({});
    expect(all.fileName).toMatch(/^sidetalk-characters-/);
    const empty = setup();
    await expect(empty.handlers['characters/export']({})).rejects.toThrow(/no characters of your own/);
  });

  it('imports all-or-nothing, never overwriting, keeping voices this browser has', async () => {
    const { handlers } = setup();
    const mine: Character = { ...BUILT_IN_CHARACTERS[1]!, id: 'builtin:marius', name: 'Professor Marius', builtIn: true };
    const cloned: Character = { ...mine, id: 'user:x', name: 'Cloned one', voice: { kind: 'cloned', voiceId: 'clone-abc' } };
    const missing: Character = { ...mine, id: 'user:y', name: 'Missing voice', voice: { kind: 'cloned', voiceId: 'clone-gone' } };
    const text = serializeCharacters([mine, cloned, missing], 1_700_000_000_000);
    const result = await handlers['characters/import']({ text, clonedVoiceIds: ['clone-abc'] });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.characters.map((c) => [c.name, c.builtIn, c.voice])).toEqual([
      ['Professor Marius (2)', false, { kind: 'builtin', voiceId: 'marius' }],
      ['Cloned one', false, { kind: 'cloned', voiceId: 'clone-abc' }],
      ['Missing voice', false, { kind: 'builtin', voiceId: 'alba' }],
    ]);
    expect(result.characters[0]!.id).not.toBe('builtin:marius');
    expect(result.warnings).toEqual(['"Missing voice": its voice isn\'t available here, so it uses the default voice.']);
    const bad = await handlers['characters/import']({ text: '{"format":"sidetalk.characters","version":1,"characters":[]}' });
    expect(bad).toMatchObject({ ok: false, error: expect.stringContaining('characters') });
    expect((await handlers['characters/list']({})).characters).toHaveLength(5);
  });

  it('damaged storage keeps what still validates', async () => {
    const { area, handlers } = setup();
    const ada = await handlers['characters/create']({ draft: draft('Ada') });
    const stored = area.data[CHARACTERS_KEY] as { characters: unknown[]; activeId: string };
    area.data[CHARACTERS_KEY] = { characters: [...stored.characters, { id: 'broken' }], activeId: 'user:gone' };
    const list = await handlers['characters/list']({});
    expect(list.characters.map((c) => c.id)).toEqual([...BUILT_IN_CHARACTERS.map((c) => c.id), ada.id]);
    expect(list.activeId).toBe('builtin:sidetalk');
  });
});
