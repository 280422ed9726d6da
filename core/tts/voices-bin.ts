/**
 * `voices.bin` (PTVB1): the preset voice states of a bundle (pocket-tts.md §3.5). Layout, little-endian:
 * "PTVB1", u32 voice count; per voice: u16 name length + UTF-8 name, u16 tensor count; per tensor: u16 key length +
 * key ("module/key"), u8 dtype (0 f32, 1 i64, 2 bool), u8 ndim, ndim × u32 dims, u32 byte count, raw bytes.
 * Every length is checked against the buffer, so a truncated or hostile file fails with VoicesBinError.
 */
import { BYTES_PER_ELEMENT, fromBytes, toBytes, type HostDtype, type HostTensor } from './tensor-data';

export interface VoiceTensors {
  name: string;
  /** Keyed by "module/key", e.g. "transformer.layers.0.self_attn/cache". */
  tensors: Map<string, HostTensor>;
}

export class VoicesBinError extends Error {
  override name = 'VoicesBinError';
}

const MAGIC = 'PTVB1';
const DTYPES: HostDtype[] = ['float32', 'int64', 'bool'];
const MAX_DIMS = 8;

export function parseVoicesBin(buffer: ArrayBuffer | Uint8Array): VoiceTensors[] {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  const need = (n: number) => {
    if (pos + n > bytes.length) throw new VoicesBinError(`truncated at byte ${pos} (needs ${n} more)`);
  };
  const u8 = () => (need(1), view.getUint8(pos++));
  const u16 = () => (need(2), (pos += 2), view.getUint16(pos - 2, true));
  const u32 = () => (need(4), (pos += 4), view.getUint32(pos - 4, true));
  const str = (n: number) => {
    need(n);
    pos += n;
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(pos - n, pos));
    } catch {
      throw new VoicesBinError(`invalid UTF-8 text at byte ${pos - n}`);
    }
  };
  need(5);
  if (str(5) !== MAGIC) throw new VoicesBinError('not a PTVB1 file');
  const voiceCount = u32();
  const voices: VoiceTensors[] = [];
  for (let v = 0; v < voiceCount; v++) {
    const name = str(u16());
    const tensorCount = u16();
    const tensors = new Map<string, HostTensor>();
    for (let t = 0; t < tensorCount; t++) {
      const key = str(u16());
      const dtype = DTYPES[u8()];
      if (!dtype) throw new VoicesBinError(`voice ${name}: tensor ${key} has an unknown dtype code`);
      const ndim = u8();
      if (ndim > MAX_DIMS) throw new VoicesBinError(`voice ${name}: tensor ${key} has ${ndim} dims`);
      const dims = Array.from({ length: ndim }, () => u32());
      const byteCount = u32();
      const expected = dims.reduce((a, d) => a * d, 1) * BYTES_PER_ELEMENT[dtype];
      if (byteCount !== expected)
        throw new VoicesBinError(`voice ${name}: tensor ${key} has ${byteCount} bytes, dims say ${expected}`);
      need(byteCount);
      tensors.set(key, { dtype, dims, data: fromBytes(dtype, bytes.subarray(pos, pos + byteCount)) });
      pos += byteCount;
    }
    voices.push({ name, tensors });
  }
  if (pos !== bytes.length) throw new VoicesBinError(`${bytes.length - pos} trailing bytes`);
  return voices;
}

/** Writes PTVB1 (used by the fixture generator and to export voices in the bundle's own format). */
export function writeVoicesBin(voices: readonly VoiceTensors[]): Uint8Array {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [enc.encode(MAGIC)];
  const num = (bytes: number, value: number) => {
    const b = new Uint8Array(bytes);
    const dv = new DataView(b.buffer);
    if (bytes === 1) dv.setUint8(0, value);
    else if (bytes === 2) dv.setUint16(0, value, true);
    else dv.setUint32(0, value, true);
    parts.push(b);
  };
  const text = (s: string) => {
    const b = enc.encode(s);
    num(2, b.length);
    parts.push(b);
  };
  num(4, voices.length);
  for (const voice of voices) {
    text(voice.name);
    num(2, voice.tensors.size);
    for (const [key, t] of voice.tensors) {
      text(key);
      num(1, DTYPES.indexOf(t.dtype));
      num(1, t.dims.length);
      for (const d of t.dims) num(4, d);
      const raw = toBytes(t.data);
      num(4, raw.byteLength);
      parts.push(raw);
    }
  }
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
