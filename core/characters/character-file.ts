// One-file export/import of characters. The file is JSON with a format/version header and holds REFERENCES to a
// user GLB or a cloned voice, never their bytes: a cloned voice state is megabytes and tied to one TTS model release
// (pocket-tts.md §5), and a GLB can be tens of MB, so embedding them would make the file huge and the size cap
// meaningless. On import a reference this browser doesn't have falls back to the default avatar / the default voice,
// with a warning the UI shows. Importing never overwrites anything: colliding ids get a fresh id.
import { z } from 'zod';
import { BUILT_IN_CHARACTERS } from './built-ins';
import { CHARACTER_LIMITS, characterSchema, describeIssues, type Character } from './character';

export const CHARACTER_FILE_FORMAT = 'sidetalk.characters';
export const CHARACTER_FILE_VERSION = 1;
/** Generous for 50 characters with full pronunciation tables (~2 KB each typical), small enough to parse instantly. */
export const MAX_CHARACTER_FILE_BYTES = 256 * 1024;
export const MAX_CHARACTERS_PER_FILE = 50;

const headerSchema = z.object({
  format: z.literal(CHARACTER_FILE_FORMAT),
  version: z.number().int(),
});

const fileSchema = z.object({
  format: z.literal(CHARACTER_FILE_FORMAT),
  version: z.literal(CHARACTER_FILE_VERSION),
  exportedAt: z.number().int().nonnegative(),
  characters: z.array(characterSchema).min(1).max(MAX_CHARACTERS_PER_FILE),
});

export type CharacterFile = z.infer<typeof fileSchema>;

/** Serialises characters; built-ins are exported as ordinary characters (an import makes them editable copies). */
export function serializeCharacters(characters: readonly Character[], now: number): string {
  const file: CharacterFile = {
    format: CHARACTER_FILE_FORMAT,
    version: CHARACTER_FILE_VERSION,
    exportedAt: Math.floor(now),
    characters: characters.map((c) => ({ ...structuredClone(c), builtIn: false })),
  };
  return JSON.stringify(file, null, 2);
}

/** Which referenced assets exist here; the caller answers from its avatar and voice stores. */
export interface AssetAvailability {
  hasUserAvatar(glbId: string): boolean;
  hasVoice(kind: 'builtin' | 'cloned', voiceId: string): boolean;
}

export interface ImportContext {
  existingIds: ReadonlySet<string>;
  existingNames: ReadonlySet<string>;
  now: number;
  newId: () => string;
  assets?: AssetAvailability;
}

export type ImportResult = { ok: true; characters: Character[]; warnings: string[] } | { ok: false; error: string };

/** Parses and validates a characters file. Pure: the caller adds the result to its store only when ok. */
export function parseCharacterFile(text: string, ctx: ImportContext): ImportResult {
  // Length first (cheap), then the exact UTF-8 size: never JSON.parse something we're going to refuse anyway.
  if (text.length > MAX_CHARACTER_FILE_BYTES || new TextEncoder().encode(text).byteLength > MAX_CHARACTER_FILE_BYTES) {
    return { ok: false, error: `That file is too large for a characters file (limit ${MAX_CHARACTER_FILE_BYTES / 1024} KB).` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: "That file isn't valid JSON, so it can't be a Sidetalk characters file." };
  }
  const header = headerSchema.safeParse(raw);
  if (!header.success) return { ok: false, error: "That file isn't a Sidetalk characters file." };
  if (header.data.version > CHARACTER_FILE_VERSION) {
    return {
      ok: false,
      error: `That file was made by a newer Sidetalk (format version ${header.data.version}). Update Sidetalk to import it.`,
    };
  }
  if (header.data.version !== CHARACTER_FILE_VERSION) {
    return { ok: false, error: `Unsupported characters file version ${header.data.version}.` };
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, error: `The characters file has problems: ${describeIssues(parsed.error)}.` };

  const warnings: string[] = [];
  const takenIds = new Set(ctx.existingIds);
  const takenNames = new Set([...ctx.existingNames].map((n) => n.toLowerCase()));
  const out: Character[] = [];
  for (const incoming of parsed.data.characters) {
    const c: Character = { ...incoming, builtIn: false, updatedAt: Math.floor(ctx.now) };
    if (takenIds.has(c.id) || BUILT_IN_CHARACTERS.some((b) => b.id === c.id) || c.id.startsWith('builtin:')) {
      c.id = freshId(ctx.newId, takenIds);
    }
    takenIds.add(c.id);
    c.name = uniqueName(c.name, takenNames);
    takenNames.add(c.name.toLowerCase());
    if (ctx.assets) {
      if (c.avatar.kind === 'user' && !ctx.assets.hasUserAvatar(c.avatar.glbId)) {
        warnings.push(`"${c.name}": its custom avatar isn't in this browser, so it uses the default avatar.`);
        c.avatar = { kind: 'default' };
      }
      if (!ctx.assets.hasVoice(c.voice.kind, c.voice.voiceId)) {
        warnings.push(`"${c.name}": its voice isn't available here, so it uses the default voice.`);
        c.voice = structuredClone(BUILT_IN_CHARACTERS[0]!.voice);
      }
    }
    out.push(c);
  }
  return { ok: true, characters: out, warnings };
}

function freshId(newId: () => string, taken: ReadonlySet<string>): string {
  for (let i = 0; i < 100; i++) {
    const id = newId();
    if (!taken.has(id)) return id;
  }
  throw new Error('could not generate a unique character id');
}

/** "Ada" → "Ada (2)" when taken, keeping within the name limit. */
export function uniqueName(name: string, takenLower: ReadonlySet<string>): string {
  if (!takenLower.has(name.toLowerCase())) return name;
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`;
    const candidate = name.slice(0, CHARACTER_LIMITS.name - suffix.length).trimEnd() + suffix;
    if (!takenLower.has(candidate.toLowerCase())) return candidate;
  }
}
