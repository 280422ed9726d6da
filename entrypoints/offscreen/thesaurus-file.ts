/**
 * The built-in thesaurus (core/page/thesaurus.ts; docs/tools.md, "The built-in thesaurus"), read from the extension's
 * own files the first time a page question needs it and kept for the document's life: 0.8 MB gzip, 2.8 MB of text.
 * A failed read is not kept, so the next question tries again; meanwhile questions are searched as asked.
 */
import { parseThesaurus, Thesaurus } from '../../core/page/thesaurus';
import { pageTunables } from '../../core/tunables';

const THESAURUS_PATH = '/thesaurus/wordnet-synonyms.tsv.gz';

let loading: Promise<Thesaurus> | null = null;

async function read(url: string): Promise<Thesaurus> {
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`the thesaurus did not load (${res.status})`);
  const text = await new Response(res.body.pipeThrough(new DecompressionStream('gzip'))).text();
  return new Thesaurus(parseThesaurus(text));
}

/** The thesaurus's keywords for a question, at most `page.rewriteMaxKeywords` (none when the table cannot be read). */
export async function thesaurusKeywords(question: string): Promise<string[]> {
  loading ??= read(chrome.runtime.getURL(THESAURUS_PATH)).catch((err: unknown) => {
    loading = null;
    throw err;
  });
  try {
    return (await loading).keywords(question, pageTunables.rewriteMaxKeywords);
  } catch (err) {
    console.warn('[sidetalk] page search goes on without the thesaurus:', (err as Error).message);
    return [];
  }
}
