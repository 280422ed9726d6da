/**
 * A minimal protobuf wire-format reader: enough to walk SentencePiece's ModelProto without a schema compiler.
 * core/ stays dependency-free; the fixture writer uses protobufjs, so the two are checked against each other.
 */

export type WireValue =
  { wire: 0; value: bigint } | { wire: 1; bytes: Uint8Array } | { wire: 2; bytes: Uint8Array } | { wire: 5; bytes: Uint8Array };

export interface WireField {
  field: number;
  data: WireValue;
}

export class ProtobufError extends Error {
  override name = 'ProtobufError';
}

/** Reads every top-level field of one message. Throws ProtobufError on truncated or malformed input. */
export function readFields(buf: Uint8Array): WireField[] {
  const out: WireField[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (pos >= buf.length) throw new ProtobufError('truncated varint');
      const b = buf[pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
    throw new ProtobufError('varint longer than 10 bytes');
  };
  const take = (n: number): Uint8Array => {
    if (n < 0 || pos + n > buf.length) throw new ProtobufError('field runs past the end of the message');
    const bytes = buf.subarray(pos, pos + n);
    pos += n;
    return bytes;
  };
  while (pos < buf.length) {
    const key = varint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (field === 0) throw new ProtobufError('field number 0');
    if (wire === 0) out.push({ field, data: { wire: 0, value: varint() } });
    else if (wire === 1) out.push({ field, data: { wire: 1, bytes: take(8) } });
    else if (wire === 2) out.push({ field, data: { wire: 2, bytes: take(Number(varint())) } });
    else if (wire === 5) out.push({ field, data: { wire: 5, bytes: take(4) } });
    else throw new ProtobufError(`unsupported wire type ${wire}`);
  }
  return out;
}

// ignoreBOM: a leading U+FEFF is content (SentencePiece has a piece "\uFEFF"), not a byte-order mark to drop.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function asString(v: WireValue): string {
  if (v.wire !== 2) throw new ProtobufError('expected a length-delimited string');
  return utf8.decode(v.bytes);
}

export function asFloat(v: WireValue): number {
  if (v.wire !== 5) throw new ProtobufError('expected a 32-bit float');
  return new DataView(v.bytes.buffer, v.bytes.byteOffset, 4).getFloat32(0, true);
}

/** int32/enum/bool varints; negative int32 values arrive as 64-bit two's complement. */
export function asInt(v: WireValue): number {
  if (v.wire !== 0) throw new ProtobufError('expected a varint');
  return Number(BigInt.asIntN(64, v.value));
}

export function asBytes(v: WireValue): Uint8Array {
  if (v.wire !== 2) throw new ProtobufError('expected length-delimited bytes');
  return v.bytes;
}
