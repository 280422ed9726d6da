/**
 * The whole pages of the retrieval bench (15k / 60k / 250k words, tests/fixtures/retrieval/whole-page.ts), tokenized
 * and batched as the product's embedder does (tokenize-page.ts), packed small enough to travel to the GPU machine with
 * the kit: each batch keeps its rows' token ids unpadded, as base64 of little-endian uint16 (the BERT vocabulary is
 * 30,522 ids), and `unpackBatches` pads them back with the attention mask and zero token types the tokenizer gives.
 */
import type { TokenBatch } from './index-time';

export interface PackedBatch {
  rows: number;
  length: number;
  /** Each row's unpadded token count. */
  lens: number[];
  /** The rows' ids back to back, uint16 little-endian, base64. */
  ids: string;
}

export interface PackedPage {
  words: number;
  pageChars: number;
  chunks: number;
  batches: PackedBatch[];
}

export function packBatch(b: TokenBatch): PackedBatch {
  const lens: number[] = [];
  const ids: number[] = [];
  for (let r = 0; r < b.rows; r++) {
    const row = b.mask.slice(r * b.length, (r + 1) * b.length);
    const len = row.reduce((a, m) => a + m, 0);
    lens.push(len);
    ids.push(...b.ids.slice(r * b.length, r * b.length + len));
  }
  const bytes = new Uint8Array(ids.length * 2);
  const view = new DataView(bytes.buffer);
  ids.forEach((id, i) => view.setUint16(i * 2, id, true));
  return { rows: b.rows, length: b.length, lens, ids: Buffer.from(bytes).toString('base64') };
}

export function unpackBatch(p: PackedBatch): TokenBatch {
  const bytes = Buffer.from(p.ids, 'base64');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ids = new Array<number>(p.rows * p.length).fill(0);
  const mask = new Array<number>(p.rows * p.length).fill(0);
  let at = 0;
  p.lens.forEach((len, r) => {
    for (let i = 0; i < len; i++, at++) {
      ids[r * p.length + i] = view.getUint16(at * 2, true);
      mask[r * p.length + i] = 1;
    }
  });
  return { rows: p.rows, length: p.length, ids, mask, types: new Array<number>(p.rows * p.length).fill(0) };
}

/** The bench's three whole pages (the first retrieval-set page last, as whole-page.ts measures recall), packed. */
export async function packedWholePages(sizes = [15_000, 60_000, 250_000]): Promise<PackedPage[]> {
  const { tokenizeText } = await import('./tokenize-page');
  const { pageEndingWith } = await import('../../tests/fixtures/retrieval/whole-page');
  const { RETRIEVAL_PAGES } = await import('../../tests/fixtures/retrieval/pages');
  const pages: PackedPage[] = [];
  for (const words of sizes) {
    const page = pageEndingWith(RETRIEVAL_PAGES[0]!, words, 7);
    const tokenized = await tokenizeText(page.text);
    pages.push({
      words: page.words,
      pageChars: tokenized.pageChars,
      chunks: tokenized.chunks,
      batches: tokenized.batches.map(packBatch),
    });
  }
  return pages;
}
