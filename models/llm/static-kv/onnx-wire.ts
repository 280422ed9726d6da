/**
 * Lossless protobuf wire-format reading and writing, enough to edit an ONNX graph without a protobuf library: a
 * message is a list of fields kept in file order; fields nobody edits (weights, doc strings, fields of newer ONNX
 * versions) are written back byte for byte. Length-delimited payloads stay views into the source buffer until the
 * model is written, so a large inline-weight graph is copied once.
 */

import { readFields as readWireFields } from '../../../core/tts/protobuf-reader';

/** Wire types: 0 varint, 1 fixed 64-bit, 2 length-delimited, 5 fixed 32-bit. */
export interface Field {
  n: number;
  w: 0 | 1 | 2 | 5;
  /** varint → bigint; fixed and length-delimited → bytes; a nested message being rebuilt → its fields. */
  v: bigint | Uint8Array | Field[];
}

/** Reads one message's fields with the project's wire reader (core/tts/protobuf-reader.ts), in file order. */
export function readFields(buf: Uint8Array): Field[] {
  return readWireFields(buf).map(({ field, data }) =>
    data.wire === 0 ? { n: field, w: 0, v: data.value } : { n: field, w: data.wire, v: data.bytes },
  );
}

function varintSize(v: bigint): number {
  let u = BigInt.asUintN(64, v);
  let n = 1;
  while (u >= 0x80n) {
    u >>= 7n;
    n++;
  }
  return n;
}

function payloadSize(f: Field): number {
  if (f.w === 0) return varintSize(f.v as bigint);
  if (Array.isArray(f.v)) return messageSize(f.v);
  return (f.v as Uint8Array).length;
}

function messageSize(fields: Field[]): number {
  let s = 0;
  for (const f of fields) {
    const p = payloadSize(f);
    s += varintSize(BigInt((f.n << 3) | f.w)) + p + (f.w === 2 ? varintSize(BigInt(p)) : 0);
  }
  return s;
}

export function writeFields(fields: Field[]): Uint8Array {
  const out = new Uint8Array(messageSize(fields));
  let pos = 0;
  const varint = (v: bigint) => {
    let u = BigInt.asUintN(64, v);
    while (u >= 0x80n) {
      out[pos++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    out[pos++] = Number(u);
  };
  const write = (fs: Field[]) => {
    for (const f of fs) {
      varint(BigInt((f.n << 3) | f.w));
      if (f.w === 0) varint(f.v as bigint);
      else if (Array.isArray(f.v)) {
        varint(BigInt(messageSize(f.v)));
        write(f.v);
      } else {
        const b = f.v as Uint8Array;
        if (f.w === 2) varint(BigInt(b.length));
        out.set(b, pos);
        pos += b.length;
      }
    }
  };
  write(fields);
  return out;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** A nested message's fields (parsed from bytes, or the fields of one being rebuilt). */
export function sub(f: Field): Field[] {
  return Array.isArray(f.v) ? f.v : readFields(f.v as Uint8Array);
}

export function first(fields: Field[], n: number): Field | undefined {
  return fields.find((f) => f.n === n);
}

export function text(f: Field | undefined): string {
  return f ? decoder.decode(f.v as Uint8Array) : '';
}

export function texts(fields: Field[], n: number): string[] {
  return fields.filter((f) => f.n === n).map((f) => text(f));
}

/** A signed int64 varint as a number. */
export function int(f: Field | undefined): number | undefined {
  return f ? Number(BigInt.asIntN(64, f.v as bigint)) : undefined;
}

/** Repeated int64 field n, packed or not. */
export function ints(fields: Field[], n: number): number[] {
  const out: number[] = [];
  for (const f of fields) {
    if (f.n !== n) continue;
    if (f.w === 0) out.push(int(f)!);
    else for (const p of readFields(packedAsVarints(f.v as Uint8Array))) out.push(int(p)!);
  }
  return out;
}

/** Re-tags a packed varint payload as a run of field-1 varints so readFields can split it. */
function packedAsVarints(b: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < b.length; i++) {
    if (i === 0 || b[i - 1]! < 0x80) out.push(0x08);
    out.push(b[i]!);
  }
  return Uint8Array.from(out);
}

export const strField = (n: number, s: string): Field => ({ n, w: 2, v: encoder.encode(s) });
export const intField = (n: number, v: number): Field => ({ n, w: 0, v: BigInt(v) });
export const msgField = (n: number, fields: Field[]): Field => ({ n, w: 2, v: fields });
