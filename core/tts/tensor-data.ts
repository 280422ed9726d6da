/** A host-side tensor as voices and states are stored: dtype + dims + typed data, independent of any runtime. */
export type HostDtype = 'float32' | 'int64' | 'bool';
export type HostData = Float32Array | BigInt64Array | Uint8Array;

export interface HostTensor {
  dtype: HostDtype;
  dims: number[];
  data: HostData;
}

export const BYTES_PER_ELEMENT: Record<HostDtype, number> = { float32: 4, int64: 8, bool: 1 };

export function allocate(dtype: HostDtype, count: number): HostData {
  if (dtype === 'float32') return new Float32Array(count);
  if (dtype === 'int64') return new BigInt64Array(count);
  return new Uint8Array(count);
}

/** Copies `byteLength` little-endian bytes into a fresh, aligned typed array (input offsets may be unaligned). */
export function fromBytes(dtype: HostDtype, bytes: Uint8Array): HostData {
  const size = BYTES_PER_ELEMENT[dtype];
  if (bytes.byteLength % size !== 0) throw new RangeError(`byte length ${bytes.byteLength} is not a multiple of ${size}`);
  const copy = new Uint8Array(bytes); // aligned copy
  if (dtype === 'float32') return new Float32Array(copy.buffer, 0, copy.byteLength / 4);
  if (dtype === 'int64') return new BigInt64Array(copy.buffer, 0, copy.byteLength / 8);
  return copy;
}

export function toBytes(data: HostData): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}
