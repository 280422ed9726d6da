/**
 * Persisting cloned voices. A voice state is model-specific (per language and release, pocket-tts.md §2), so each
 * record names the bundle it belongs to; consent travels with the voice. `serializeVoice` writes
 * "STVOICE" + u16 version + u32 header length + JSON header + a one-voice PTVB1 payload; `deserializeVoice` checks
 * every field and size so a damaged or hostile file is refused with VoiceFileError, never half-loaded.
 * The IndexedDB store lives in the offscreen document; it stores the bytes from `serializeVoice`.
 */
import { z } from 'zod';
import type { HostTensor } from './tensor-data';
import { parseVoicesBin, VoicesBinError, writeVoicesBin } from './voices-bin';

export const consentSchema = z.object({
  /** The exact sentence the user accepted, e.g. "This is my voice, or I have the speaker's explicit permission." */
  statement: z.string().trim().min(10).max(2000),
  /** Epoch ms. */
  acceptedAt: z.number().int().positive(),
});
export type VoiceConsent = z.infer<typeof consentSchema>;

export interface StoredVoice {
  id: string;
  name: string;
  /** bundle_name + language of the model that made it; never use a voice with another model. */
  bundleId: string;
  createdAt: number;
  consent: VoiceConsent;
  /** Always true for clones: the UI labels them as synthetic. */
  synthetic: true;
  /** Flow-LM state after the voice prefix, keyed "module/key" (cache trimmed to the prefix length, step). */
  tensors: Map<string, HostTensor>;
}

export interface VoiceStore {
  list(bundleId?: string): Promise<Omit<StoredVoice, 'tensors'>[]>;
  get(id: string): Promise<StoredVoice | undefined>;
  put(voice: StoredVoice): Promise<void>;
  delete(id: string): Promise<boolean>;
}

export class InMemoryVoiceStore implements VoiceStore {
  private readonly voices = new Map<string, Uint8Array>();
  // Stored serialized, as a real store would, so the round trip is exercised on every put/get.
  async list(bundleId?: string) {
    const out: Omit<StoredVoice, 'tensors'>[] = [];
    for (const bytes of this.voices.values()) {
      const { tensors: _t, ...meta } = deserializeVoice(bytes);
      if (bundleId === undefined || meta.bundleId === bundleId) out.push(meta);
    }
    return out;
  }
  async get(id: string) {
    const bytes = this.voices.get(id);
    return bytes ? deserializeVoice(bytes) : undefined;
  }
  async put(voice: StoredVoice) {
    this.voices.set(voice.id, serializeVoice(voice));
  }
  async delete(id: string) {
    return this.voices.delete(id);
  }
}

export class VoiceFileError extends Error {
  override name = 'VoiceFileError';
}

const MAGIC = 'STVOICE';
export const VOICE_FILE_VERSION = 1;
/** 30 s of prefix ≈ 18.4 MB in f32 (pocket-tts.md §5); anything far beyond that is not a voice. */
export const MAX_VOICE_FILE_BYTES = 64 * 1024 * 1024;
const MAX_HEADER_BYTES = 64 * 1024;

const headerSchema = z.object({
  id: z.string().min(1).max(200),
  name: z.string().min(1).max(200),
  bundleId: z.string().min(1).max(200),
  createdAt: z.number().int().positive(),
  consent: consentSchema,
  synthetic: z.literal(true),
});

export function serializeVoice(voice: StoredVoice): Uint8Array {
  const header = new TextEncoder().encode(
    JSON.stringify(
      headerSchema.parse({
        id: voice.id,
        name: voice.name,
        bundleId: voice.bundleId,
        createdAt: voice.createdAt,
        consent: voice.consent,
        synthetic: voice.synthetic,
      }),
    ),
  );
  const payload = writeVoicesBin([{ name: voice.id, tensors: voice.tensors }]);
  const out = new Uint8Array(MAGIC.length + 2 + 4 + header.length + payload.length);
  const v = new DataView(out.buffer);
  out.set(new TextEncoder().encode(MAGIC), 0);
  v.setUint16(7, VOICE_FILE_VERSION, true);
  v.setUint32(9, header.length, true);
  out.set(header, 13);
  out.set(payload, 13 + header.length);
  return out;
}

export function deserializeVoice(buffer: ArrayBuffer | Uint8Array): StoredVoice {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  if (bytes.length > MAX_VOICE_FILE_BYTES)
    throw new VoiceFileError(`voice file is ${bytes.length} bytes (limit ${MAX_VOICE_FILE_BYTES})`);
  if (bytes.length < 13 || new TextDecoder().decode(bytes.subarray(0, 7)) !== MAGIC)
    throw new VoiceFileError('not a Sidetalk voice file');
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = v.getUint16(7, true);
  if (version !== VOICE_FILE_VERSION) throw new VoiceFileError(`unsupported voice file version ${version}`);
  const headerLen = v.getUint32(9, true);
  if (headerLen > MAX_HEADER_BYTES || 13 + headerLen > bytes.length) throw new VoiceFileError('bad header length');
  let header: z.infer<typeof headerSchema>;
  try {
    header = headerSchema.parse(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(13, 13 + headerLen))));
  } catch (e) {
    throw new VoiceFileError(`bad header: ${(e as Error).message.slice(0, 200)}`);
  }
  let voices;
  try {
    voices = parseVoicesBin(bytes.subarray(13 + headerLen));
  } catch (e) {
    if (e instanceof VoicesBinError) throw new VoiceFileError(`bad tensors: ${e.message}`);
    throw e;
  }
  if (voices.length !== 1 || voices[0]!.name !== header.id) throw new VoiceFileError('payload does not hold exactly this voice');
  for (const [key, t] of voices[0]!.tensors) {
    if (t.dtype === 'float32' && !(t.data as Float32Array).every(Number.isFinite)) {
      throw new VoiceFileError(`tensor ${key} holds non-finite values`);
    }
  }
  return { ...header, tensors: voices[0]!.tensors };
}
