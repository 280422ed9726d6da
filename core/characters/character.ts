// What a character is, as data, with the zod schema that every character passes through when it enters from
// outside (an imported file, storage written by an older build). The schema is the single source of limits so the
// UI, the importer and the store agree on them.
import { z } from 'zod';

/** Control characters (except tab/newline) have no business in a name or a spoken line and can hide content. */
const NO_CONTROL = /^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]*$/;

const text = (min: number, max: number) =>
  z.string().trim().min(min).max(max).regex(NO_CONTROL, 'must not contain control characters');

/** Ids are opaque tokens, never rendered as HTML and never used as paths; a tight alphabet keeps them that way. */
export const idSchema = z.string().regex(/^[A-Za-z0-9:_-]{1,64}$/, 'must be 1–64 letters, digits, ":", "_" or "-"');
const refSchema = z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be a 1–128 character reference id');

export const CHARACTER_LIMITS = {
  name: 60,
  personaName: 40,
  style: 600,
  greeting: 300,
  pronunciations: 200,
  word: 64,
  sayAs: 128,
} as const;

export const avatarRefSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('default') }),
  /** A GLB the user loaded; the bytes live in the side panel's avatar store under this id, never inside the character. */
  z.object({ kind: z.literal('user'), glbId: refSchema }),
]);

export const voiceRefSchema = z.discriminatedUnion('kind', [
  /** A Pocket TTS preset from voices.bin (alba, marius, …). */
  z.object({ kind: z.literal('builtin'), voiceId: refSchema }),
  /** A cloned voice state in core/tts/voice-store (model-specific, consent attached there). */
  z.object({ kind: z.literal('cloned'), voiceId: refSchema }),
]);

export const personaSchema = z.object({
  /** What the assistant calls itself. */
  name: text(1, CHARACTER_LIMITS.personaName),
  /** Free text: tone and manner ("calm, precise, a patient teacher"). Goes into the system prompt. */
  style: text(0, CHARACTER_LIMITS.style),
  /** Spoken when the character becomes active or a conversation starts; may be empty. */
  greeting: text(0, CHARACTER_LIMITS.greeting),
});

export const pronunciationSchema = z.object({
  word: text(1, CHARACTER_LIMITS.word),
  sayAs: text(1, CHARACTER_LIMITS.sayAs),
});

export const characterSchema = z.object({
  id: idSchema,
  name: text(1, CHARACTER_LIMITS.name),
  avatar: avatarRefSchema,
  voice: voiceRefSchema,
  persona: personaSchema,
  pronunciations: z.array(pronunciationSchema).max(CHARACTER_LIMITS.pronunciations),
  createdAt: z.number().int().nonnegative(),
  updatedAt: z.number().int().nonnegative(),
  builtIn: z.boolean(),
});

export type AvatarRef = z.infer<typeof avatarRefSchema>;
export type VoiceRef = z.infer<typeof voiceRefSchema>;
export type Persona = z.infer<typeof personaSchema>;
export type Pronunciation = z.infer<typeof pronunciationSchema>;
export type Character = z.infer<typeof characterSchema>;

/** The fields a user edits; ids, timestamps and builtIn are the store's business. */
export const characterDraftSchema = characterSchema.pick({
  name: true,
  avatar: true,
  voice: true,
  persona: true,
  pronunciations: true,
});
export type CharacterDraft = z.infer<typeof characterDraftSchema>;

/**
 * An edit: only the fields that changed, the persona's per field, so two edits of one character made from two
 * panels (each from the character as it was when its editor opened) both land (core/characters/character-store.ts).
 */
export const characterPatchSchema = characterDraftSchema.omit({ persona: true }).partial().extend({
  persona: personaSchema.partial().optional(),
});
export type CharacterPatch = z.infer<typeof characterPatchSchema>;

/** What an editor changed: the fields of `after` that differ from `before` (the persona's compared per field). */
export function draftChanges(before: CharacterDraft, after: CharacterDraft): CharacterPatch {
  const patch: CharacterPatch = {};
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (!same(before.name, after.name)) patch.name = after.name;
  if (!same(before.avatar, after.avatar)) patch.avatar = after.avatar;
  if (!same(before.voice, after.voice)) patch.voice = after.voice;
  if (!same(before.pronunciations, after.pronunciations)) patch.pronunciations = after.pronunciations;
  const persona: Partial<CharacterDraft['persona']> = {};
  for (const key of ['name', 'style', 'greeting'] as const)
    if (before.persona[key] !== after.persona[key]) persona[key] = after.persona[key];
  if (Object.keys(persona).length) patch.persona = persona;
  return patch;
}

/** One readable line per zod issue, e.g. `characters.0.persona.name: Too small…`, for the UI and import errors. */
export function describeIssues(error: z.ZodError, prefix = ''): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${[prefix, ...i.path.map(String)].filter(Boolean).join('.') || 'file'}: ${i.message}`)
    .join('; ');
}
