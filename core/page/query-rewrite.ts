// Question rewriting for lexical page search (docs/tools.md, "Page questions"): without the embedding model a
// question in the user's own words finds a passage only when it shares a stem with it, so the LLM is first asked for
// keywords and synonyms, and their stems join the question's at a lower weight. Everything that can go wrong (a slow
// model, an abort, an empty, rambling or tool-call-like reply) falls back to the question as asked: the rewrite can
// add search terms, never remove the user's. Nothing here logs the question or the reply.
import type { ChatMessage } from '../conversation/chat-message';
import type { Clock } from '../tools/types';
import { pageTunables } from '../tunables';
import { searchTerms, type SearchQuery, type WeightedTerms } from './bm25';

/** Part of the rewrite's system prompt, unique to it (test builds' scripted model stand-in matches on it). */
export const REWRITE_MARK = 'You turn a question about a web page into search keywords.';

/** The prompt: the question alone, no page text (so nothing on the page can steer it), no tools. */
export function rewriteMessages(question: string): ChatMessage[] {
  const keywords = pageTunables.rewriteMaxKeywords;
  return [
    {
      role: 'system',
      content: [
        REWRITE_MARK,
        `Reply with one line: at most ${keywords} words or short phrases, separated by commas, that the page might use`,
        "instead of the question's own words: synonyms and closely related terms.",
        'No sentences, no explanations, no numbering, no answer to the question.',
      ].join('\n'),
    },
    { role: 'user', content: `Question: ${question}\nKeywords:` },
  ];
}

/** A keyword is a word or a short phrase: at most this many words and characters. */
const MAX_KEYWORD_WORDS = 3;
const MAX_KEYWORD_CHARS = 40;
/** Output that looks like a tool call or a chat-template token: the reply is not a keyword list. */
const TOOL_LIKE = /<\/?\s*(?:tool_call|function|tools?)\b|<\||\|>|\{\s*"(?:name|function|arguments|tool)"\s*:/i;

/**
 * The keywords in a rewrite reply, at most `page.rewriteMaxKeywords`; [] when the reply is not a keyword list (empty,
 * a sentence, a tool call). Only the first `page.rewriteMaxChars` are read; an item cut there is dropped.
 */
export function parseRewrite(raw: string): string[] {
  // A reasoning model's thoughts are not keywords; an unclosed one runs to the end.
  const text = raw.replace(/<think>[\s\S]*?(?:<\/think>|$)/gi, '');
  if (TOOL_LIKE.test(text)) return [];
  const cut = text.length > pageTunables.rewriteMaxChars;
  const items = text.slice(0, pageTunables.rewriteMaxChars).split(/[,;\n|•]+/);
  if (cut) items.pop();
  const out: string[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    const keyword = item
      .replace(/^\s*(?:keywords?|search terms?)\s*:/i, '')
      .replace(/^\s*(?:[-*+]|\d+[.)])\s*/, '')
      .replace(/^["'“‘(\s]+|["'”’).\s]+$/g, '')
      .trim();
    if (!keyword || keyword.length > MAX_KEYWORD_CHARS) continue;
    if (keyword.split(/\s+/).length > MAX_KEYWORD_WORDS) continue;
    if (!/^[\p{L}\p{N}][\p{L}\p{N}\p{M}' -]*$/u.test(keyword)) continue;
    const key = keyword.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(keyword);
    if (out.length >= pageTunables.rewriteMaxKeywords) break;
  }
  return out;
}

/**
 * The question's own stems at weight 1, then the keywords' new stems at `page.rewriteTermWeight` (never above 1), in
 * the reply's order, at most `page.rewriteMaxAddedTerms` of them. No keyword stems to add: the question as asked.
 */
export function mergeQuery(question: string, keywords: readonly string[]): SearchQuery {
  const terms = new Map<string, number>();
  for (const t of searchTerms(question)) terms.set(t, 1);
  const weight = Math.min(1, Math.max(0, pageTunables.rewriteTermWeight));
  let added = 0;
  for (const k of keywords) {
    for (const t of searchTerms(k)) {
      if (terms.has(t) || added >= pageTunables.rewriteMaxAddedTerms) continue;
      terms.set(t, weight);
      added++;
    }
  }
  return added && weight > 0 ? (terms as WeightedTerms) : question;
}

export interface QueryRewriteDeps {
  /** The conversation's LLM, without tools. */
  generate(messages: ChatMessage[], signal: AbortSignal): AsyncIterable<string>;
  clock: Clock;
  /**
   * Keywords without a model (the built-in thesaurus, thesaurus.ts), used when the LLM gives none: it runs on the CPU
   * only as an empty answer, or it was too slow, or its reply was no keyword list.
   */
  thesaurus?(question: string): Promise<string[]>;
}

/**
 * The question's lexical query: merged with the LLM's keywords when they come within `page.rewriteCapMs`, else with
 * the built-in thesaurus's, else the question as asked. An abort of `signal` stops the generation and returns the
 * question at once; so does the cap, for the LLM's part.
 */
export async function rewriteQuery(question: string, signal: AbortSignal, deps: QueryRewriteDeps): Promise<SearchQuery> {
  if (signal.aborted || !searchTerms(question).length) return question;
  const fromModel = pageTunables.rewriteCapMs > 0 ? await modelKeywords(question, signal, deps) : [];
  if (signal.aborted) return question;
  const keywords = fromModel.length ? fromModel : await (deps.thesaurus?.(question) ?? Promise.resolve([])).catch(() => []);
  return signal.aborted ? question : mergeQuery(question, keywords);
}

/** The LLM's keywords, or none when it does not answer within `page.rewriteCapMs` or `signal` aborts. */
async function modelKeywords(question: string, signal: AbortSignal, deps: QueryRewriteDeps): Promise<string[]> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const late = deps.clock.sleep(pageTunables.rewriteCapMs, stop.signal).then(
    () => null,
    () => null,
  );
  const reply = (async () => {
    let raw = '';
    for await (const delta of deps.generate(rewriteMessages(question), stop.signal)) {
      raw += delta;
      if (raw.length > pageTunables.rewriteMaxChars) break;
    }
    return raw;
  })().catch(() => null);
  try {
    const raw = await Promise.race([reply, late]);
    return raw === null || stop.signal.aborted ? [] : parseRewrite(raw);
  } finally {
    // Stops a generation still running (the cap passed, the reply was too long) and the cap's timer.
    stop.abort();
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * The in-browser model's answer to the rewrite prompt: asked only when it runs on WebGPU. On WASM it decodes about a
 * second a token (docs/tools.md, "The question rewrite"), so no keyword could arrive inside `page.rewriteCapMs`: it is
 * not run at all and the empty answer sends the question to search as asked, at once.
 */
export function localRewriteAnswer(backend: 'webgpu' | 'wasm' | null, run: () => AsyncIterable<string>): AsyncIterable<string> {
  return backend === 'webgpu' ? run() : noPieces();
}

/** An answer with no pieces. */
async function* noPieces(): AsyncGenerator<string> {}
