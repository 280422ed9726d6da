import { describe, expect, it } from 'vitest';
import {
  CHARACTER_FILE_FORMAT,
  CHARACTER_FILE_VERSION,
  MAX_CHARACTER_FILE_BYTES,
  MAX_CHARACTERS_PER_FILE,
  createInMemoryCharacterStore,
  parseCharacterFile,
  serializeCharacters,
  type Character,
} from '../../../core/characters';
import { draft, makeStore } from './helpers';

const ctx = (over: Partial<Parameters<typeof parseCharacterFile>[1]> = {}) => {
  let n = 0;
  return { existingIds: new Set<string>(), existingNames: new Set<string>(), now: 9_000, newId: () => `user:new${++n}`, ...over };
};

function character(over: Partial<Character> = {}): Character {
  return { ...draft(), id: 'user:ada', createdAt: 100, updatedAt: 200, builtIn: false, ...over };
}

function fileWith(characters: unknown[], header: Record<string, unknown> = {}): string {
  return JSON.stringify({ format: CHARACTER_FILE_FORMAT, version: CHARACTER_FILE_VERSION, exportedAt: 1, characters, ...header });
}

describe('character file round trip', () => {
  it('export → import gives the same characters (built-ins come back as editable copies)', async () => {
    const source = makeStore();
    const a = await source.create(draft({ avatar: { kind: 'user', glbId: 'glb-1' }, voice: { kind: 'cloned', voiceId: 'v-1' } }));
    const b = await source.create(draft({ name: 'Bob', pronunciations: [] }));
    const text = await source.exportFile([a.id, b.id, 'builtin:marius']);
    const header = JSON.parse(text) as Record<string, unknown>;
    expect(header).toMatchObject({ format: 'sidetalk.characters', version: 1 });

    const target = createInMemoryCharacterStore({ now: () => 50_000, newId: () => 'user:zzz' });
    const result = await target.importFile(text);
    expect(result).toMatchObject({ ok: true, warnings: [] });
    const imported = (await target.list()).filter((c) => !c.builtIn);
    const withoutUpdatedAt = ({ updatedAt: _u, ...rest }: Character) => rest;
    expect(imported.slice(0, 2).map(withoutUpdatedAt)).toEqual([a, b].map(withoutUpdatedAt));
    // marius's id is a built-in id in the target, so it gets a fresh id; its name collides, so it is suffixed.
    const marius = (await source.get('builtin:marius'))!;
    expect(withoutUpdatedAt(imported[2]!)).toEqual(
      withoutUpdatedAt({ ...marius, id: 'user:zzz', name: 'Professor Marius (2)', builtIn: false }),
    );
    expect(imported.every((c) => c.updatedAt === 50_000)).toBe(true);
  });

  it('serializes references, never binary data', () => {
    const text = serializeCharacters([character({ avatar: { kind: 'user', glbId: 'glb-1' } })], 1);
    expect(JSON.parse(text).characters[0].avatar).toEqual({ kind: 'user', glbId: 'glb-1' });
  });

  it('exporting with nothing of your own to export says so', async () => {
    await expect(makeStore().exportFile()).rejects.toThrow(/no characters of your own/);
  });
});

describe('character file import validation', () => {
  it.each([
    ['bad JSON', '{"format": "sidetalk.characters", ', /isn't valid JSON/],
    ['another file type', JSON.stringify({ hello: 'world' }), /isn't a Sidetalk characters file/],
    ['a JSON array', '[]', /isn't a Sidetalk characters file/],
    ['a newer version', fileWith([character()], { version: 2 }), /newer Sidetalk.*version 2/],
    ['an old/unknown version', fileWith([character()], { version: 0 }), /Unsupported .* version 0/],
    ['no characters', fileWith([]), /characters/],
    ['a missing persona', fileWith([{ ...character(), persona: undefined }]), /characters\.0\.persona/],
    ['a missing name', fileWith([{ ...character(), name: undefined }]), /characters\.0\.name/],
    ['a wrong avatar kind', fileWith([{ ...character(), avatar: { kind: 'url', href: 'http://x' } }]), /characters\.0\.avatar/],
    ['a path-like voice id', fileWith([character({ voice: { kind: 'cloned', voiceId: '../secret' } })]), /voiceId/],
    ['control characters', fileWith([character({ name: 'A\u0000B' })]), /control characters/],
    [
      'too many characters',
      fileWith(Array.from({ length: MAX_CHARACTERS_PER_FILE + 1 }, (_, i) => character({ id: `user:${i}` }))),
      /characters/,
    ],
  ])('rejects %s with a clear message', (_name, text, message) => {
    const r = parseCharacterFile(text, ctx());
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(message);
  });

  it('rejects an oversize file before parsing it', () => {
    const big = fileWith([character({ persona: { name: 'A', style: 'x', greeting: 'y' } })], {
      padding: 'x'.repeat(MAX_CHARACTER_FILE_BYTES),
    });
    const r = parseCharacterFile(big, ctx());
    expect(r).toEqual({ ok: false, error: 'That file is too large for a characters file (limit 256 KB).' });
    // Multi-byte text under the character limit but over the byte limit is refused too.
    const wide = fileWith([character()], { padding: 'é'.repeat(MAX_CHARACTER_FILE_BYTES / 2) });
    expect(wide.length).toBeLessThan(MAX_CHARACTER_FILE_BYTES + 200);
    expect(parseCharacterFile(wide, ctx()).ok).toBe(false);
  });

  it('a failed import changes nothing in the store', async () => {
    const store = makeStore();
    const mine = await store.create(draft());
    const before = await store.list();
    const r = await store.importFile(fileWith([character({ id: 'user:x' }), { ...character({ id: 'user:y' }), name: '' }]));
    expect(r.ok).toBe(false);
    expect(await store.list()).toEqual(before);
    expect((await store.get(mine.id))!.name).toBe('Ada');
  });

  it('keeps script-ish strings as inert text and ignores unknown keys and __proto__', () => {
    const payload = '<img src=x onerror="alert(1)"><script>alert(2)</script>';
    const raw = fileWith([
      { ...character({ name: payload, persona: { name: 'P', style: payload, greeting: payload } }), extra: 1 },
    ]).replace('"extra":1', '"extra":1,"__proto__":{"polluted":true}');
    const r = parseCharacterFile(raw, ctx());
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.characters[0]!.name).toBe(payload);
      expect(r.characters[0]!.persona.greeting).toBe(payload);
      expect(Object.keys(r.characters[0]!)).not.toContain('extra');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('handles id and name collisions without overwriting, and never imports as built-in', () => {
    const text = fileWith([
      character({ id: 'user:ada', builtIn: true }),
      character({ id: 'builtin:sidetalk', name: 'Sidetalk' }),
      character({ id: 'builtin:fake', name: 'Other' }),
    ]);
    const r = parseCharacterFile(text, ctx({ existingIds: new Set(['user:ada']), existingNames: new Set(['Ada', 'Sidetalk']) }));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.characters.map((c) => [c.id, c.name, c.builtIn])).toEqual([
      ['user:new1', 'Ada (2)', false],
      ['user:new2', 'Sidetalk (2)', false],
      ['user:new3', 'Other', false],
    ]);
  });

  it('replaces references to assets this browser lacks, with warnings', () => {
    const text = fileWith([character({ avatar: { kind: 'user', glbId: 'gone' }, voice: { kind: 'cloned', voiceId: 'gone' } })]);
    const r = parseCharacterFile(text, ctx({ assets: { hasUserAvatar: () => false, hasVoice: (kind) => kind === 'builtin' } }));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.characters[0]!.avatar).toEqual({ kind: 'default' });
    expect(r.characters[0]!.voice).toEqual({ kind: 'builtin', voiceId: 'alba' });
    expect(r.warnings).toHaveLength(2);
    expect(r.warnings[0]).toContain('default avatar');
  });
});
