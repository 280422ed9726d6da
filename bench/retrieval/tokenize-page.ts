/**
 * The 100,000-character page of the index-time bench, tokenized and batched as the product's embedder does
 * (models/embed/text-embedder.ts): chunked by core/page/chunking.ts, each chunk's embedding text tokenized with the
 * fixture's BERT WordPiece tokenizer (tests/fixtures/embed), truncated at `page.embedMaxTokens`, in batches of
 * `page.embedBatchSize` padded to their longest row.
 */
import type { Tensor as TjsTensor } from '@huggingface/transformers';
import { chunkPage } from '../../core/page/chunking';
import { embeddingText } from '../../core/page/dense';
import { pageTunables } from '../../core/tunables';
import { embedFixtureFiles } from '../../tests/fixtures/embed/generate';
import { RETRIEVAL_PAGES } from '../../tests/fixtures/retrieval/pages';
import type { TokenBatch } from './index-time';

export const PAGE_CHARS = 100_000;

/** The set's pages back to back, cut at a paragraph boundary at 100,000 characters. */
export function hundredKPage(): string {
  const all = RETRIEVAL_PAGES.map((p) => p.text).join('\n\n');
  const cut = all.slice(0, PAGE_CHARS);
  return cut.slice(0, cut.lastIndexOf('\n\n'));
}

/** The 100k-character page's chunks, tokenized and batched as the product's embedder does (pure data, no ORT). */
export function tokenizedPage(): Promise<{ pageChars: number; chunks: number; batches: TokenBatch[] }> {
  return tokenizeText(hundredKPage());
}

/** Any page's chunks (as the product indexes them), tokenized and batched as the product's embedder does. */
export async function tokenizeText(text: string): Promise<{ pageChars: number; chunks: number; batches: TokenBatch[] }> {
  const { BertTokenizer } = await import('@huggingface/transformers');
  const files = embedFixtureFiles();
  const json = (path: string) => JSON.parse(new TextDecoder().decode(files[path])) as Record<string, unknown>;
  const tokenizer = new BertTokenizer(json('tokenizer.json'), json('tokenizer_config.json'));
  const texts = chunkPage(text).chunks.map(embeddingText);
  const batches: TokenBatch[] = [];
  for (let i = 0; i < texts.length; i += pageTunables.embedBatchSize) {
    const enc = tokenizer(texts.slice(i, i + pageTunables.embedBatchSize), {
      padding: true,
      truncation: true,
      max_length: pageTunables.embedMaxTokens,
    }) as Record<string, TjsTensor>;
    const [rows, length] = enc.input_ids!.dims as [number, number];
    const list = (name: string) => Array.from(enc[name]!.data as BigInt64Array, Number);
    batches.push({ rows, length, ids: list('input_ids'), mask: list('attention_mask'), types: list('token_type_ids') });
  }
  return { pageChars: text.length, chunks: texts.length, batches };
}
