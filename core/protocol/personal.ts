import { z } from 'zod';
import { characterDraftSchema, characterPatchSchema, characterSchema, idSchema } from '../characters/character';
import { MAX_CHARACTERS_PER_FILE, MAX_CHARACTER_FILE_BYTES } from '../characters/character-file';
import { consentSchema } from '../tts/voice-store';
import { MAX_VOICE_TRANSFER_BASE64, MAX_VOICE_TRANSFER_BYTES } from '../tts/voice-transfer';

/**
 * Requests and events for what the user makes their own: characters (background, chrome.storage.local), voices
 * (offscreen: the TTS worker and the IndexedDB clone store) and the bring-your-own model server (background). They
 * are spread into REQUESTS / EVENTS in messages.ts; see docs/characters.md, docs/tts.md and docs/remote-llm.md.
 */

const Empty = z.object({}).strict();

export const CharacterListSchema = z.object({
  characters: z.array(characterSchema).max(1000),
  activeId: idSchema,
});

/** A voice the TTS bundle or the clone store offers; clones are always labelled synthetic in the UI. */
export const VoiceInfoSchema = z.object({
  id: z.string().min(1).max(200),
  name: z.string().min(1).max(200),
  kind: z.enum(['preset', 'clone']),
});

export const ClonedVoiceSchema = z.object({
  id: z.string().min(1).max(200),
  name: z.string().min(1).max(200),
  createdAt: z.number().int().nonnegative(),
  synthetic: z.literal(true),
  /** Whether the current TTS bundle can use it (a clone belongs to the model release that made it). */
  usable: z.boolean(),
  consentStatement: z.string().max(2000),
});
export type ClonedVoice = z.infer<typeof ClonedVoiceSchema>;

export const VoiceListSchema = z.object({
  /** False while the voice model is not downloaded (then `message` says so and presets is empty). */
  ready: z.boolean(),
  message: z.string().max(500).optional(),
  presets: z.array(VoiceInfoSchema).max(500),
  clones: z.array(ClonedVoiceSchema).max(500),
  /** The loaded bundle has a mimi_encoder (the gated checkpoint): cloning is possible. */
  canClone: z.boolean(),
});
export type VoiceList = z.infer<typeof VoiceListSchema>;

/** 30 s of 24 kHz 16-bit mono WAV is 1.44 MB, 1.92 MB as base64; the limit leaves room for 48 kHz uploads. */
export const MAX_CLONE_WAV_BASE64 = 8 * 1024 * 1024;

/** A voice file (STVOICE) as base64; the offscreen document validates the bytes themselves (voice-transfer.ts). */
const VoiceFileBase64Schema = z
  .string()
  .min(20, 'That file is too small to be a Sidetalk voice file.')
  .max(
    MAX_VOICE_TRANSFER_BASE64,
    `That voice file is too large (Sidetalk moves voice files of up to ${MAX_VOICE_TRANSFER_BYTES / 1024 / 1024} MB).`,
  )
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'The voice file must be sent as base64.');

export const RemoteLlmConfigSchema = z.object({
  baseUrl: z.string().url().max(2048),
  model: z.string().min(1).max(256),
  apiKey: z.string().max(4096).optional(),
  fallbackToLocal: z.boolean(),
});

export const RemoteLlmSettingsInputSchema = z.object({
  baseUrl: z.string().max(2048),
  model: z.string().max(256),
  apiKey: z.string().max(4096).optional(),
  fallbackToLocal: z.boolean(),
});

const ImportResultSchema = z.union([
  z.object({
    ok: z.literal(true),
    characters: z.array(characterSchema).max(MAX_CHARACTERS_PER_FILE),
    warnings: z.array(z.string()),
  }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);

export const PERSONAL_REQUESTS = {
  'characters/list': { target: 'background', payload: Empty, result: CharacterListSchema },
  'characters/get-active': { target: 'background', payload: Empty, result: characterSchema },
  'characters/set-active': {
    target: 'background',
    payload: z.object({ id: idSchema, greet: z.boolean().optional() }).strict(),
    result: characterSchema,
  },
  'characters/create': {
    target: 'background',
    payload: z.object({ draft: characterDraftSchema }).strict(),
    result: characterSchema,
  },
  'characters/update': {
    target: 'background',
    payload: z.object({ id: idSchema, patch: characterPatchSchema }).strict(),
    result: characterSchema,
  },
  'characters/duplicate': { target: 'background', payload: z.object({ id: idSchema }).strict(), result: characterSchema },
  'characters/delete': { target: 'background', payload: z.object({ id: idSchema }).strict(), result: Empty },
  'characters/export': {
    target: 'background',
    payload: z.object({ ids: z.array(idSchema).min(1).max(MAX_CHARACTERS_PER_FILE).optional() }).strict(),
    result: z.object({ fileName: z.string(), text: z.string() }),
  },
  'characters/import': {
    target: 'background',
    payload: z
      .object({
        // The importer gives the readable "too large" sentence; this only bounds what crosses the boundary.
        text: z.string().max(MAX_CHARACTER_FILE_BYTES * 2),
        /** Cloned voices this browser has (the side panel asks the offscreen document), so references can be kept. */
        clonedVoiceIds: z.array(z.string().max(200)).max(500).optional(),
      })
      .strict(),
    result: ImportResultSchema,
  },
  /** The background tells the conversation which character is active (and whether to greet with it). */
  'conversation/character': {
    target: 'offscreen',
    payload: z.object({ character: characterSchema, greet: z.boolean() }).strict(),
    result: Empty,
  },
  'voices/list': { target: 'offscreen', payload: Empty, result: VoiceListSchema },
  'voices/preview': {
    target: 'offscreen',
    payload: z.object({ voiceId: z.string().min(1).max(200), text: z.string().trim().min(1).max(300).optional() }).strict(),
    result: z.object({ frames: z.number().int().nonnegative() }),
  },
  'voices/clone': {
    target: 'offscreen',
    payload: z
      .object({
        name: z.string().trim().min(1).max(60),
        /** Mono 16-bit WAV (≤ 30 s) as base64: runtime messaging is JSON-only. */
        wavBase64: z.string().min(8).max(MAX_CLONE_WAV_BASE64),
        consent: consentSchema,
      })
      .strict(),
    result: ClonedVoiceSchema,
  },
  'voices/rename': {
    target: 'offscreen',
    payload: z.object({ id: z.string().min(1).max(200), name: z.string().trim().min(1).max(60) }).strict(),
    result: ClonedVoiceSchema,
  },
  'voices/delete': { target: 'offscreen', payload: z.object({ id: z.string().min(1).max(200) }).strict(), result: Empty },
  /** The stored voice file itself (consent inside), to save as `fileName`. */
  'voices/export': {
    target: 'offscreen',
    payload: z.object({ id: z.string().min(1).max(200) }).strict(),
    result: z.object({ fileName: z.string().min(1).max(100), bytesBase64: VoiceFileBase64Schema }),
  },
  /** Adds a voice file as a new clone (never overwriting one); answers with the clone as voices/list shows it. */
  'voices/import': {
    target: 'offscreen',
    payload: z
      .object({
        /** The chosen file's name, only to name it in an error. */
        fileName: z.string().max(255).optional(),
        bytesBase64: VoiceFileBase64Schema,
      })
      .strict(),
    result: ClonedVoiceSchema,
  },
  /** The stored server config (with its key: only extension contexts can send this). */
  /** `unusable`: the origin pattern of a stored server today's rules refuse (the settings offer to remove it). */
  'remote-llm/get': {
    target: 'background',
    payload: Empty,
    result: z.object({ config: RemoteLlmConfigSchema.nullable(), unusable: z.string().max(300).optional() }),
  },
  /** null stops using the server. The side panel asks Chrome for the origin permission before sending this. */
  'remote-llm/set': {
    target: 'background',
    payload: z.object({ settings: RemoteLlmSettingsInputSchema.nullable() }).strict(),
    result: z.object({ config: RemoteLlmConfigSchema.nullable() }),
  },
} as const;

export const PERSONAL_EVENTS = {
  'event/characters': CharacterListSchema.strict(),
} as const;
