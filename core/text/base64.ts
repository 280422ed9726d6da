/**
 * Bytes as base64 and back: runtime messaging between the extension's contexts is JSON-only, so files (a cloned
 * voice, a PDF the user opened) cross as base64.
 */

export function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  // Chunked: String.fromCharCode(...all) overflows the argument limit on megabyte inputs.
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

export function base64ToBytes(b64: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
