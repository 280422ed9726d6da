/**
 * Recall at the prompt's token budget over the retrieval set (tests/fixtures/retrieval): for each question, the share
 * of its answer sentences that are inside the chunks retrievePassages quotes, lexical only (BM25 over stems), dense
 * only and hybrid (reciprocal rank fusion). Dense vectors come from the product's TextEmbedder over the page-embedding
 * fixture (tests/fixtures/embed: the pinned bundle's files and graph contract, SIF-weighted GloVe inside) served by
 * the local hub, so the numbers measure the retrieval code with a weak, real-data embedding, not all-MiniLM-L6-v2.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env } from '@huggingface/transformers';
import { chunkPage } from '../../core/page/chunking';
import { defaultFusion } from '../../core/page/fusion';
import { PageEmbeddingIndex } from '../../core/page/page-embeddings';
import { retrievePassages } from '../../core/page/retrieval';
import { pageTunables } from '../../core/tunables';
import { TextEmbedder } from '../../models/embed/text-embedder';
import { WEIGHTS_MANIFEST } from '../../models/registry';
import { generateEmbedFixture } from '../../tests/fixtures/embed/generate';
import { startHubServer } from '../../tests/fixtures/hub/server';
import { RETRIEVAL_PAGES, type Question } from '../../tests/fixtures/retrieval/pages';

export type Mode = 'lexical' | 'dense' | 'hybrid';
export const MODES: Mode[] = ['lexical', 'dense', 'hybrid'];
export const KINDS: Question['kind'][] = ['words', 'paraphrase', 'two-sections'];

export interface RecallResult {
  budgetTokens: number;
  pages: { title: string; words: number; chunks: number }[];
  /** kind → mode → mean recall (0–1) and the number of questions. */
  recall: Record<string, Record<Mode, number> & { questions: number }>;
  /** Per question: recall of each mode (for reading where it fails). */
  perQuestion: { page: string; kind: string; question: string; lexical: number; dense: number; hybrid: number }[];
}

/** Serves the embedding fixture on a local hub and loads the product's embedder from it (transformers.js, Node CPU). */
export async function fixtureEmbedder(): Promise<{ embedder: TextEmbedder; close(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'sidetalk-retrieval-hub-'));
  const cache = await mkdtemp(join(tmpdir(), 'sidetalk-retrieval-cache-'));
  await generateEmbedFixture(root);
  const revisions = Object.fromEntries(Object.values(WEIGHTS_MANIFEST.repos).map((r) => [r.id, r.commit]));
  const hub = await startHubServer({ root, revisions });
  env.allowLocalModels = false;
  env.allowRemoteModels = true;
  env.remoteHost = `${hub.url}/`;
  env.cacheDir = cache;
  const embedder = await TextEmbedder.load({ device: 'cpu' });
  return {
    embedder,
    async close() {
      await embedder.dispose();
      await hub.close();
      await rm(root, { recursive: true, force: true });
      await rm(cache, { recursive: true, force: true });
    },
  };
}

export async function measureRecall(embedder: TextEmbedder): Promise<RecallResult> {
  const budget = pageTunables.contextTokens;
  const fusion = defaultFusion();
  const perQuestion: RecallResult['perQuestion'] = [];
  const pages: RecallResult['pages'] = [];
  for (const page of RETRIEVAL_PAGES) {
    const { chunks } = chunkPage(page.text);
    pages.push({ title: page.title, words: page.text.split(/\s+/).length, chunks: chunks.length });
    const index = new PageEmbeddingIndex((texts) => embedder.embed(texts));
    for (const q of page.questions) {
      const dense = await index.scores(page.text, chunks, q.question);
      const recallOf = (chosen: { text: string }[]) => {
        const quoted = chosen.map((c) => c.text).join('\n');
        return q.answers.filter((a) => quoted.includes(a)).length / q.answers.length;
      };
      perQuestion.push({
        page: page.title,
        kind: q.kind,
        question: q.question,
        lexical: recallOf(retrievePassages(chunks, q.question, budget, null).chunks),
        dense: recallOf(retrievePassages(chunks, q.question, budget, dense, { ...fusion, lexical: 0 }).chunks),
        hybrid: recallOf(retrievePassages(chunks, q.question, budget, dense).chunks),
      });
    }
  }
  const recall: RecallResult['recall'] = {};
  for (const kind of KINDS) {
    const rows = perQuestion.filter((r) => r.kind === kind);
    const mean = (m: Mode) => Math.round((rows.reduce((s, r) => s + r[m], 0) / rows.length) * 1000) / 1000;
    recall[kind] = { lexical: mean('lexical'), dense: mean('dense'), hybrid: mean('hybrid'), questions: rows.length };
  }
  return { budgetTokens: budget, pages, recall, perQuestion };
}
