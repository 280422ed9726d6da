// The character collection and its rules (built-ins read-only and undeletable, one active character, imports never
// overwrite). All logic works on one snapshot {characters, activeId} behind a tiny load/save backend, so the caller's
// chrome.storage version is just another backend and inherits every rule tested here.
import { z } from 'zod';
import { BUILT_IN_CHARACTERS, DEFAULT_CHARACTER_ID, isBuiltInId } from './built-ins';
import {
  characterDraftSchema,
  characterSchema,
  describeIssues,
  idSchema,
  type Character,
  type CharacterDraft,
  type CharacterPatch,
} from './character';
import { parseCharacterFile, serializeCharacters, uniqueName, type AssetAvailability, type ImportResult } from './character-file';

export type CharacterErrorCode = 'not_found' | 'built_in' | 'invalid';

export class CharacterError extends Error {
  constructor(
    readonly code: CharacterErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CharacterError';
  }
}

export interface CharacterStore {
  /** Built-ins first, then the user's characters in creation order. */
  list(): Promise<Character[]>;
  get(id: string): Promise<Character | undefined>;
  getActive(): Promise<Character>;
  setActive(id: string): Promise<Character>;
  create(draft: CharacterDraft): Promise<Character>;
  /** Built-ins refuse edits (code 'built_in'): duplicate first. */
  update(id: string, patch: CharacterPatch): Promise<Character>;
  duplicate(id: string): Promise<Character>;
  /** Built-ins refuse deletion. Deleting the active character makes the default active. */
  delete(id: string): Promise<void>;
  /** Export the given characters (all user characters when ids is omitted) as one file's text. */
  exportFile(ids?: readonly string[]): Promise<string>;
  /** All-or-nothing: on error nothing changes. */
  importFile(text: string): Promise<ImportResult>;
}

/** What a backend persists. Built-ins are never stored: they come from code so updates reach users. */
export const characterSnapshotSchema = z.object({
  characters: z.array(z.unknown()),
  activeId: idSchema,
});
export interface CharacterSnapshot {
  characters: Character[];
  activeId: string;
}

export interface CharacterSnapshotBackend {
  load(): Promise<unknown>;
  save(snapshot: CharacterSnapshot): Promise<void>;
}

export function memoryBackend(initial?: CharacterSnapshot): CharacterSnapshotBackend {
  let stored: unknown = initial ? structuredClone(initial) : undefined;
  return {
    load: async () => structuredClone(stored),
    save: async (s) => {
      stored = structuredClone(s);
    },
  };
}

export interface CharacterStoreOptions {
  now: () => number;
  newId?: () => string;
  assets?: AssetAvailability;
}

/**
 * One queue per backend: every change is a read-modify-write of the whole snapshot, so two at once (two edits saved
 * from two panels, an import during an edit) would each write the list they read and lose the other's change. Store
 * objects are cheap and made per request; the queue belongs to the storage they share.
 */
const queues = new WeakMap<CharacterSnapshotBackend, Promise<unknown>>();

export class SnapshotCharacterStore implements CharacterStore {
  private readonly newId: () => string;

  /** Runs one change after every change already queued on this backend. */
  private exclusive<T>(change: () => Promise<T>): Promise<T> {
    const run = (queues.get(this.backend) ?? Promise.resolve()).then(change);
    queues.set(
      this.backend,
      run.catch(() => undefined),
    );
    return run;
  }

  constructor(
    private readonly backend: CharacterSnapshotBackend,
    private readonly opts: CharacterStoreOptions,
  ) {
    this.newId = opts.newId ?? (() => `user:${globalThis.crypto.randomUUID()}`);
  }

  async list(): Promise<Character[]> {
    const s = await this.read();
    return [...BUILT_IN_CHARACTERS.map((c) => structuredClone(c)), ...s.characters];
  }

  async get(id: string): Promise<Character | undefined> {
    return (await this.list()).find((c) => c.id === id);
  }

  async getActive(): Promise<Character> {
    const s = await this.read();
    return (await this.get(s.activeId)) ?? structuredClone(BUILT_IN_CHARACTERS[0]!);
  }

  setActive(id: string): Promise<Character> {
    return this.exclusive(() => this.setActiveNow(id));
  }

  private async setActiveNow(id: string): Promise<Character> {
    const c = await this.require(id);
    const s = await this.read();
    await this.backend.save({ ...s, activeId: c.id });
    return c;
  }

  create(draft: CharacterDraft): Promise<Character> {
    return this.exclusive(() => this.createNow(draft));
  }

  private async createNow(draft: CharacterDraft): Promise<Character> {
    const d = validDraft(draft);
    const s = await this.read();
    const now = this.now();
    const c: Character = {
      ...d,
      name: uniqueName(d.name, namesOf(s)),
      id: this.freshId(s),
      createdAt: now,
      updatedAt: now,
      builtIn: false,
    };
    await this.backend.save({ ...s, characters: [...s.characters, c] });
    return structuredClone(c);
  }

  update(id: string, patch: CharacterPatch): Promise<Character> {
    return this.exclusive(() => this.updateNow(id, patch));
  }

  private async updateNow(id: string, patch: CharacterPatch): Promise<Character> {
    if (isBuiltInId(id))
      throw new CharacterError('built_in', 'Built-in characters can’t be edited. Duplicate it and edit the copy.');
    const s = await this.read();
    const at = s.characters.findIndex((c) => c.id === id);
    if (at < 0) throw new CharacterError('not_found', 'That character no longer exists.');
    const current = s.characters[at]!;
    const { id: _i, createdAt: _c, updatedAt: _u, builtIn: _b, ...currentDraft } = current;
    // The persona merges per field: an edit of the style keeps a greeting another panel just saved.
    const merged = validDraft({ ...currentDraft, ...patch, persona: { ...currentDraft.persona, ...patch.persona } });
    const others = new Set(s.characters.filter((c) => c.id !== id).map((c) => c.name.toLowerCase()));
    for (const b of BUILT_IN_CHARACTERS) others.add(b.name.toLowerCase());
    const next: Character = {
      ...current,
      ...merged,
      name: uniqueName(merged.name, others),
      updatedAt: Math.max(this.now(), current.updatedAt),
    };
    const characters = [...s.characters];
    characters[at] = next;
    await this.backend.save({ ...s, characters });
    return structuredClone(next);
  }

  duplicate(id: string): Promise<Character> {
    return this.exclusive(() => this.duplicateNow(id));
  }

  private async duplicateNow(id: string): Promise<Character> {
    const source = await this.require(id);
    const s = await this.read();
    const now = this.now();
    const copy: Character = {
      ...structuredClone(source),
      id: this.freshId(s),
      name: uniqueName(`${source.name} copy`, namesOf(s)),
      createdAt: now,
      updatedAt: now,
      builtIn: false,
    };
    await this.backend.save({ ...s, characters: [...s.characters, copy] });
    return structuredClone(copy);
  }

  delete(id: string): Promise<void> {
    return this.exclusive(() => this.deleteNow(id));
  }

  private async deleteNow(id: string): Promise<void> {
    if (isBuiltInId(id)) throw new CharacterError('built_in', 'Built-in characters can’t be deleted.');
    const s = await this.read();
    if (!s.characters.some((c) => c.id === id)) throw new CharacterError('not_found', 'That character no longer exists.');
    await this.backend.save({
      characters: s.characters.filter((c) => c.id !== id),
      activeId: s.activeId === id ? DEFAULT_CHARACTER_ID : s.activeId,
    });
  }

  async exportFile(ids?: readonly string[]): Promise<string> {
    const all = await this.list();
    const chosen = ids ? ids.map((id) => all.find((c) => c.id === id)) : all.filter((c) => !c.builtIn);
    if (chosen.length === 0) throw new CharacterError('invalid', 'There are no characters of your own to export yet.');
    if (chosen.some((c) => c === undefined)) throw new CharacterError('not_found', 'That character no longer exists.');
    return serializeCharacters(chosen as Character[], this.now());
  }

  importFile(text: string): Promise<ImportResult> {
    return this.exclusive(() => this.importFileNow(text));
  }

  private async importFileNow(text: string): Promise<ImportResult> {
    const s = await this.read();
    const result = parseCharacterFile(text, {
      existingIds: new Set([...BUILT_IN_CHARACTERS, ...s.characters].map((c) => c.id)),
      existingNames: namesOf(s),
      now: this.now(),
      newId: this.newId,
      ...(this.opts.assets ? { assets: this.opts.assets } : {}),
    });
    if (result.ok) await this.backend.save({ ...s, characters: [...s.characters, ...result.characters] });
    return result;
  }

  private now(): number {
    return Math.floor(this.opts.now());
  }

  private freshId(s: CharacterSnapshot): string {
    const taken = new Set([...BUILT_IN_CHARACTERS, ...s.characters].map((c) => c.id));
    for (let i = 0; i < 100; i++) {
      const id = this.newId();
      if (!taken.has(id) && idSchema.safeParse(id).success) return id;
    }
    throw new Error('could not generate a unique character id');
  }

  private async require(id: string): Promise<Character> {
    const c = await this.get(id);
    if (!c) throw new CharacterError('not_found', 'That character no longer exists.');
    return c;
  }

  /** Storage written by another build may be damaged: keep every character that still validates, drop the rest. */
  private async read(): Promise<CharacterSnapshot> {
    const parsed = characterSnapshotSchema.safeParse(await this.backend.load());
    if (!parsed.success) return { characters: [], activeId: DEFAULT_CHARACTER_ID };
    const characters: Character[] = [];
    for (const raw of parsed.data.characters) {
      const c = characterSchema.safeParse(raw);
      if (c.success && !isBuiltInId(c.data.id) && !characters.some((x) => x.id === c.data.id)) {
        characters.push({ ...c.data, builtIn: false });
      }
    }
    const activeKnown = isBuiltInId(parsed.data.activeId) || characters.some((c) => c.id === parsed.data.activeId);
    return { characters, activeId: activeKnown ? parsed.data.activeId : DEFAULT_CHARACTER_ID };
  }
}

function validDraft(draft: unknown): CharacterDraft {
  const parsed = characterDraftSchema.safeParse(draft);
  if (!parsed.success) throw new CharacterError('invalid', describeIssues(parsed.error));
  return parsed.data;
}

function namesOf(s: CharacterSnapshot): Set<string> {
  return new Set([...BUILT_IN_CHARACTERS, ...s.characters].map((c) => c.name.toLowerCase()));
}

/** The in-memory store: tests, and the side panel before storage has loaded. */
export function createInMemoryCharacterStore(opts: CharacterStoreOptions, initial?: CharacterSnapshot): CharacterStore {
  return new SnapshotCharacterStore(memoryBackend(initial), opts);
}
