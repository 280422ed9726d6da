/**
 * Malicious and damaged character import files (split from the user-files fuzz; avatars: avatar-glb-fuzz.test.ts,
 * WAV and voice files: voice-files-fuzz.test.ts). Each must be imported cleanly or refused with a readable message,
 * never crash with a TypeError/RangeError from deep inside, and the size cap must apply before parsing.
 */
import { describe, expect, it } from 'vitest';
import {
  CHARACTER_FILE_FORMAT,
  CHARACTER_FILE_VERSION,
  MAX_CHARACTER_FILE_BYTES,
  parseCharacterFile,
} from '../../../core/characters';
import { arbitrary, jsonSafe, mutate, Rng } from './arbitrary';

// ---------- character import files ----------

describe('hostile character import files', () => {
  const ctx = () => {
    let n = 0;
    return {
      existingIds: new Set<string>(['user:a']),
      existingNames: new Set<string>(['Ada']),
      now: 9_000,
      newId: () => `user:n${++n}`,
    };
  };
  const character = {
    id: 'user:a',
    name: 'Ada',
    avatar: { kind: 'default' },
    voice: { kind: 'builtin', voiceId: 'alba' },
    persona: { name: 'Ada', style: 'Dry wit.', greeting: 'Hi.' },
    pronunciations: [{ word: 'Lovelace', sayAs: 'Love lace' }],
    createdAt: 1,
    updatedAt: 2,
    builtIn: false,
  };
  const file = { format: CHARACTER_FILE_FORMAT, version: CHARACTER_FILE_VERSION, exportedAt: 1, characters: [character] };

  function expectImport(text: string, label: string) {
    let r: ReturnType<typeof parseCharacterFile>;
    try {
      r = parseCharacterFile(text, ctx());
    } catch (err) {
      throw new Error(`${label}: parseCharacterFile threw ${(err as Error).message}`);
    }
    if (!r.ok) {
      expect(r.error.length).toBeGreaterThan(10);
      expect(r.error.length).toBeLessThan(2000);
    } else {
      // Whatever is accepted is clean: fresh unique ids, no built-in flags, no control characters in names.
      for (const c of r.characters) {
        expect(c.builtIn).toBe(false);
        expect(c.id).not.toBe('user:a');
        expect(c.name).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/);
      }
    }
    return r;
  }

  it('accepts the valid file (renaming the colliding id and name)', () => {
    const r = expectImport(JSON.stringify(file), 'valid');
    expect(r.ok && r.characters[0]).toMatchObject({ id: 'user:n1', name: 'Ada (2)' });
  });

  it('refuses oversized, non-JSON, wrong-format and newer-version files with clear errors', () => {
    const cases: [string, string, RegExp][] = [
      ['huge', ' '.repeat(MAX_CHARACTER_FILE_BYTES + 1), /too large/],
      ['multibyte over cap', '{"a":"' + 'é'.repeat(MAX_CHARACTER_FILE_BYTES / 2) + '"}', /too large/],
      ['not json', '<html>', /isn't valid JSON/],
      ['deep nesting', '['.repeat(100_000), /isn't valid JSON/],
      ['array', '[1,2]', /isn't a Sidetalk characters file/],
      ['newer', JSON.stringify({ ...file, version: 99 }), /newer Sidetalk/],
      ['no characters', JSON.stringify({ ...file, characters: [] }), /problems/],
      ['51 characters', JSON.stringify({ ...file, characters: Array.from({ length: 51 }, () => character) }), /problems/],
      ['html in id', JSON.stringify({ ...file, characters: [{ ...character, id: '<img src=x>' }] }), /problems/],
      ['control chars', JSON.stringify({ ...file, characters: [{ ...character, name: 'A\u0007da' }] }), /problems/],
      [
        'path in glb ref',
        JSON.stringify({ ...file, characters: [{ ...character, avatar: { kind: 'user', glbId: '../../x' } }] }),
        /problems/,
      ],
    ];
    for (const [label, text, message] of cases) {
      const r = expectImport(text, label);
      expect(r.ok, label).toBe(false);
      expect(!r.ok && r.error, label).toMatch(message);
    }
  });

  it('thousands of random damaged files: imported cleanly or refused in words', () => {
    const rng = new Rng(0xc4a7);
    let accepted = 0;
    for (let i = 0; i < 2000; i++) {
      const how = rng.int(0, 3);
      const text =
        how === 0
          ? (JSON.stringify(mutate(rng, file), jsonSafe) ?? 'undefined')
          : how === 1
            ? JSON.stringify(file).slice(0, rng.int(0, 400))
            : how === 2
              ? (JSON.stringify(arbitrary(rng, 3), jsonSafe) ?? '')
              : String.fromCharCode(...rng.bytes(rng.int(0, 300)));
      if (expectImport(text, `file #${i}`).ok) accepted++;
    }
    expect(accepted).toBeGreaterThan(20);
  });
});
