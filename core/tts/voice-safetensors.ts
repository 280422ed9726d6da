/**
 * A voice state stored as safetensors (docs/tts.md): one tensor per flow-LM state, keyed "module/key", e.g.
 * `transformer.layers.0.self_attn/cache` [2,1,T,16,64] and `…/offset` int64 [1]; the layout of Pocket TTS's own
 * exported voice states. Format: u64 little-endian header length, a JSON header
 * `{name: {dtype, shape, data_offsets: [begin, end]}}` (offsets relative to the end of the header), then the data.
 * Half-precision tensors are widened to float32 (voices are often stored in f16 to halve them). Every offset and
 * length is checked against the buffer, so a truncated or hostile file fails with VoiceFileError.
 */
import { z } from 'zod';
import { BYTES_PER_ELEMENT, fromBytes, type HostDtype, type HostTensor } from './tensor-data';

export class VoiceFileError extends Error {
  override name = 'VoiceFileError';
}

const MAX_HEADER_BYTES = 1 << 20;

const entrySchema = z.object({
  dtype: z.string(),
  shape: z.array(z.number().int().nonnegative()).max(8),
  data_offsets: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]),
});

/** Stored dtype → the host dtype it becomes, and bytes per stored element. */
const STORED: Record<string, { host: HostDtype; bytes: number }> = {
  F32: { host: 'float32', bytes: 4 },
  F16: { host: 'float32', bytes: 2 },
  BF16: { host: 'float32', bytes: 2 },
  I64: { host: 'int64', bytes: 8 },
  BOOL: { host: 'bool', bytes: 1 },
};

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * 2 ** -14 * (frac / 1024);
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * 2 ** (exp - 15) * (1 + frac / 1024);
}

function widen(dtype: 'F16' | 'BF16', raw: Uint8Array): Float32Array {
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const out = new Float32Array(raw.byteLength / 2);
  const scratch = new DataView(new ArrayBuffer(4));
  for (let i = 0; i < out.length; i++) {
    const h = view.getUint16(i * 2, true);
    if (dtype === 'F16') out[i] = halfToFloat(h);
    else {
      scratch.setUint32(0, h << 16, true);
      out[i] = scratch.getFloat32(0, true);
    }
  }
  return out;
}

export function parseVoiceSafetensors(buffer: ArrayBuffer | Uint8Array): Map<string, HostTensor> {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  if (bytes.byteLength < 8) throw new VoiceFileError('not a safetensors file (too short)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen = Number(view.getBigUint64(0, true));
  if (headerLen > MAX_HEADER_BYTES || 8 + headerLen > bytes.byteLength)
    throw new VoiceFileError(`header of ${headerLen} bytes does not fit`);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + headerLen)));
  } catch {
    throw new VoiceFileError('header is not JSON');
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) throw new VoiceFileError('header is not an object');
  const data = bytes.subarray(8 + headerLen);
  const tensors = new Map<string, HostTensor>();
  for (const [name, value] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const entry = entrySchema.safeParse(value);
    if (!entry.success) throw new VoiceFileError(`tensor ${name}: malformed header entry`);
    const {
      dtype,
      shape,
      data_offsets: [begin, end],
    } = entry.data;
    const stored = STORED[dtype];
    if (!stored) throw new VoiceFileError(`tensor ${name}: dtype ${dtype} is not supported`);
    const count = shape.reduce((a, d) => a * d, 1);
    if (end < begin || end > data.byteLength)
      throw new VoiceFileError(`tensor ${name}: data [${begin}, ${end}) is outside the file`);
    if (end - begin !== count * stored.bytes)
      throw new VoiceFileError(`tensor ${name}: ${end - begin} bytes, shape says ${count * stored.bytes}`);
    const raw = data.subarray(begin, end);
    const values = dtype === 'F16' || dtype === 'BF16' ? widen(dtype, raw) : fromBytes(stored.host, raw);
    if (values.length * BYTES_PER_ELEMENT[stored.host] !== count * BYTES_PER_ELEMENT[stored.host])
      throw new VoiceFileError(`tensor ${name}: size mismatch`);
    tensors.set(name, { dtype: stored.host, dims: [...shape], data: values });
  }
  if (tensors.size === 0) throw new VoiceFileError('no tensors');
  return tensors;
}
