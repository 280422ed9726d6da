/**
 * A SentencePiece model's `precompiled_charsmap`: its normalisation rules (for `nmt_nfkc`, NFKC per character plus
 * SentencePiece's own edits, e.g. tabs and zero-width spaces become spaces), compiled by the trainer. We read it as
 * the reference normaliser does (docs/tts.md, "Tokenizer: reference comparison"), so no JS approximation
 * (String.normalize) is involved.
 *
 * Blob layout: a little-endian uint32 byte size of the trie, the trie, then NUL-terminated replacement strings.
 * The trie is a darts-clone double array of little-endian uint32 units over UTF-8 bytes; a key's value is the offset
 * of its replacement in the string area. Unit bits: 0–7 label, 8 "has a leaf child", 9 offset scale (×256),
 * 10–31 offset; a leaf unit (bit 31 set, so it never equals a byte label) holds the value in bits 0–30.
 */

/** The reference keeps the first 32 prefix matches and takes the longest of those. */
const MAX_PREFIX_MATCHES = 32;

export class CharsMapError extends Error {
  override name = 'CharsMapError';
}

export interface CharsMapMatch {
  /** Input bytes the rule consumes. */
  length: number;
  /** UTF-8 bytes that replace them (may be empty: the characters are deleted). */
  replacement: Uint8Array;
}

const hasLeaf = (unit: number): boolean => ((unit >>> 8) & 1) === 1;
const leafValue = (unit: number): number => unit & 0x7fffffff;
const label = (unit: number): number => (unit & 0x800000ff) >>> 0;
const offset = (unit: number): number => ((unit >>> 10) << ((unit & 0x200) >>> 6)) >>> 0;

export class PrecompiledCharsMap {
  private readonly replacements = new Map<number, Uint8Array>();

  private constructor(
    private readonly units: Uint32Array,
    private readonly strings: Uint8Array,
  ) {}

  static parse(blob: Uint8Array): PrecompiledCharsMap {
    if (blob.length <= 4) throw new CharsMapError('precompiled_charsmap is too short');
    const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
    const trieBytes = view.getUint32(0, true);
    if (trieBytes >= blob.length || trieBytes % 4 !== 0 || trieBytes === 0) {
      throw new CharsMapError(`precompiled_charsmap trie size ${trieBytes} does not fit a ${blob.length}-byte blob`);
    }
    const units = new Uint32Array(trieBytes / 4);
    for (let i = 0; i < units.length; i++) units[i] = view.getUint32(4 + i * 4, true);
    return new PrecompiledCharsMap(units, blob.subarray(4 + trieBytes));
  }

  /** The longest rule whose key is a prefix of `bytes[pos..]`, or undefined when none is. */
  match(bytes: Uint8Array, pos: number): CharsMapMatch | undefined {
    const units = this.units;
    let node = offset(units[0]!);
    let found = 0;
    let bestLength = 0;
    let bestValue = 0;
    for (let i = pos; i < bytes.length; i++) {
      const byte = bytes[i]!;
      node ^= byte;
      const unit = units[node];
      if (unit === undefined || label(unit) !== byte) break;
      node ^= offset(unit);
      if (hasLeaf(unit)) {
        found++;
        const leaf = units[node];
        if (leaf === undefined) throw new CharsMapError('precompiled_charsmap leaf outside the trie');
        if (found <= MAX_PREFIX_MATCHES) {
          bestLength = i + 1 - pos;
          bestValue = leafValue(leaf);
        }
      }
    }
    return bestLength === 0 ? undefined : { length: bestLength, replacement: this.replacement(bestValue) };
  }

  private replacement(start: number): Uint8Array {
    let r = this.replacements.get(start);
    if (r) return r;
    if (start >= this.strings.length) throw new CharsMapError(`replacement offset ${start} is outside the blob`);
    const end = this.strings.indexOf(0, start);
    r = this.strings.subarray(start, end < 0 ? this.strings.length : end);
    this.replacements.set(start, r);
    return r;
  }
}
