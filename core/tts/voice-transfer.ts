/**
 * Moving a cloned voice between browsers as a file. The file is the stored STVOICE bytes themselves (voice-store.ts),
 * so the consent statement and time travel with the voice and an import is validated exactly like a stored voice.
 * Runtime messaging is JSON-only, so the bytes cross between the side panel and the offscreen document as base64.
 */
import { base64ToBytes, bytesToBase64 } from '../text/base64';
import { consentSchema, deserializeVoice, serializeVoice, VoiceFileError, type StoredVoice } from './voice-store';

export { base64ToBytes, bytesToBase64 };

export const VOICE_FILE_EXTENSION = '.stvoice';

/**
 * A 30 s clone is ≈ 18.4 MB of f32 KV cache (pocket-tts.md §5), ≈ 24.5 MB as base64. Chrome refuses a runtime
 * message over 64 MiB, so a transfer is capped well below that (the store itself accepts up to 64 MB).
 */
export const MAX_VOICE_TRANSFER_BYTES = 24 * 1024 * 1024;
export const MAX_VOICE_TRANSFER_BASE64 = Math.ceil(MAX_VOICE_TRANSFER_BYTES / 3) * 4;

/** "Anna's voice!" → "Anna-s-voice.stvoice": letters, digits, "-" and "_" only, so no OS or path trouble. */
export function voiceFileName(name: string): string {
  const safe = name
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}_-]+/gu, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '')
    .slice(0, 60)
    .replace(/[-_]+$/, '');
  return `${safe || 'voice'}${VOICE_FILE_EXTENSION}`;
}

/** The ids `clone.ts` makes. Anything else (e.g. "alba") could shadow a preset in the worker, so it is replaced. */
export function isCloneId(id: string): boolean {
  return /^clone-[a-z0-9]{1,16}-[a-z0-9]{1,16}$/.test(id);
}

export function newCloneId(now: number = Date.now(), random: number = Math.random()): string {
  return `clone-${now.toString(36)}-${Math.floor(random * 1e9).toString(36)}`;
}

/** "My voice" → "My voice (2)" when that name is listed already, so every row (and its button labels) stays distinct. */
export function uniqueVoiceName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`;
    const candidate = `${name.slice(0, 60 - suffix.length).trimEnd()}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

export interface ImportContext {
  /** The loaded TTS bundle's id; null when the voice model isn't loaded (then the voice is stored unchecked). */
  bundleId: string | null;
  /** Ids in the clone store and preset ids of the loaded bundle. */
  takenIds: ReadonlySet<string>;
  /** Names in the clone store. */
  takenNames: ReadonlySet<string>;
  newId?: () => string;
}

export interface PreparedImport {
  voice: Omit<StoredVoice, 'tensors'>;
  /** The bytes to store: the file as given, or re-serialized when its id or name had to change. */
  bytes: Uint8Array;
}

/**
 * Checks a voice file for import and gives it an id and name that overwrite nothing. Throws an Error whose message
 * is the sentence the user sees.
 */
export function prepareVoiceImport(file: Uint8Array, ctx: ImportContext): PreparedImport {
  let voice: StoredVoice;
  try {
    voice = deserializeVoice(file);
  } catch (err) {
    if (err instanceof VoiceFileError) throw new Error(importProblem(err.message, file));
    throw err;
  }
  if (ctx.bundleId !== null && voice.bundleId !== ctx.bundleId) {
    throw new Error(
      `That voice was made with another voice model (${voice.bundleId}); this Sidetalk speaks with ${ctx.bundleId}.`,
    );
  }
  // Never overwrite: a file whose id is in use (the same voice imported twice, or a clash) becomes a new voice.
  let id = voice.id;
  const make = ctx.newId ?? (() => newCloneId());
  for (let tries = 0; !isCloneId(id) || ctx.takenIds.has(id); tries++) {
    if (tries === 100) throw new Error('Could not give the imported voice a new id.');
    id = make();
  }
  const name = uniqueVoiceName(voice.name, ctx.takenNames);
  const { tensors: _tensors, ...meta } = voice;
  if (id === voice.id && name === voice.name) return { voice: meta, bytes: file };
  return { voice: { ...meta, id, name }, bytes: serializeVoice({ ...voice, id, name }) };
}

/** The user's sentence for a VoiceFileError (whose header message is a raw zod dump). */
function importProblem(reason: string, file: Uint8Array): string {
  if (reason === 'not a Sidetalk voice file') return 'That file isn’t a Sidetalk voice file.';
  if (reason.startsWith('unsupported voice file version'))
    return `That voice file comes from another version of Sidetalk (${reason}).`;
  if (reason.startsWith('voice file is')) return `That file is too large to be a voice (${reason}).`;
  if (reason.startsWith('bad header')) {
    return lacksConsent(file)
      ? 'That voice file has no valid consent record (the statement the person agreed to, and when), so it can’t be imported.'
      : 'That voice file is damaged: its header can’t be read.';
  }
  return `That voice file is damaged or incomplete (${reason.slice(0, 160)}).`;
}

/** Reads the header leniently, only to tell a missing consent apart from other damage. */
function lacksConsent(file: Uint8Array): boolean {
  try {
    const len = new DataView(file.buffer, file.byteOffset, file.byteLength).getUint32(9, true);
    const header = JSON.parse(new TextDecoder().decode(file.subarray(13, 13 + len))) as { consent?: unknown } | null;
    return typeof header === 'object' && header !== null && !consentSchema.safeParse(header.consent).success;
  } catch {
    return false;
  }
}
