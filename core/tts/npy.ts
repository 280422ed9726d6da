/**
 * Minimal .npy (NumPy format v1/v2) reader/writer for little-endian float32 arrays — enough for the bundle's
 * `bos_before_voice.npy` (f32 [1,1,1024]). Fortran order and other dtypes are refused, not guessed.
 */
export class NpyError extends Error {
  override name = 'NpyError';
}

export function parseNpyFloat32(buffer: ArrayBuffer | Uint8Array): { dims: number[]; data: Float32Array } {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  if (bytes.length < 10 || bytes[0] !== 0x93 || String.fromCharCode(...bytes.subarray(1, 6)) !== 'NUMPY') {
    throw new NpyError('not an .npy file');
  }
  const major = bytes[6]!;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  if (start + headerLen > bytes.length) throw new NpyError('truncated header');
  const header = new TextDecoder().decode(bytes.subarray(start, start + headerLen));
  if (!/'descr':\s*'<f4'/.test(header)) throw new NpyError(`unsupported dtype in ${header.trim()}`);
  if (!/'fortran_order':\s*False/.test(header)) throw new NpyError('Fortran order is not supported');
  const shapeMatch = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!shapeMatch) throw new NpyError('no shape in header');
  const dims = shapeMatch[1]!
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  const count = dims.reduce((a, d) => a * d, 1);
  const dataStart = start + headerLen;
  if (bytes.length - dataStart !== count * 4)
    throw new NpyError(`expected ${count * 4} data bytes, got ${bytes.length - dataStart}`);
  const data = new Float32Array(new Uint8Array(bytes.subarray(dataStart)).buffer);
  return { dims, data };
}

export function writeNpyFloat32(dims: number[], data: Float32Array): Uint8Array {
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': ${shape}, }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const out = new Uint8Array(10 + header.length + data.byteLength);
  out.set([0x93, ...new TextEncoder().encode('NUMPY'), 1, 0]);
  new DataView(out.buffer).setUint16(8, header.length, true);
  out.set(new TextEncoder().encode(header), 10);
  out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), 10 + header.length);
  return out;
}
