/**
 * The scripted stand-in for the LLM's question rewrite (core/page/query-rewrite.ts), for the bench only: NOT the
 * real LLM. Its reply to each question of the retrieval set is made mechanically from the question's own words, never
 * from the page or the answer sentences: for every search word of the question (stop words dropped), its nearest
 * GloVe neighbours (cosine over the fixture's SIF table, tests/fixtures/embed/word-vectors.ts) that bring a new stem;
 * first neighbours of every word, then second ones, as one comma-separated line. The replies are served by the
 * product's ScriptedModel and go through the product's parse and merge, as the real LLM's would. GloVe neighbours are
 * related words more than synonyms ("guarantee" → ensure, assure; "kids" → girls, folks), so this is a weak rewriter.
 * The product's own built-in thesaurus (core/page/thesaurus.ts) is measured beside it in rewrite.ts.
 */
import type { ChatMessage } from '../../core/conversation/chat-message';
import { ScriptedModel } from '../../core/conversation/scripted-model';
import { searchTerms } from '../../core/page/bm25';
import { GLOVE_DIMS, sifWordTable } from '../../tests/fixtures/embed/word-vectors';

/** Neighbours taken per question word. */
const PER_WORD = 2;
/** Keywords in one reply (the product keeps at most page.rewriteMaxKeywords of them). */
const MAX_KEYWORDS = 8;

let unit: { words: string[]; rows: Float32Array; index: Map<string, number> } | null = null;

function table() {
  if (unit) return unit;
  const { words, rows: sif } = sifWordTable();
  const rows = new Float32Array(sif.length);
  for (let i = 0; i < words.length; i++) {
    let norm = 0;
    for (let d = 0; d < GLOVE_DIMS; d++) norm += sif[i * GLOVE_DIMS + d]! ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < GLOVE_DIMS; d++) rows[i * GLOVE_DIMS + d] = sif[i * GLOVE_DIMS + d]! / norm;
  }
  unit = { words, rows, index: new Map(words.map((w, i) => [w, i])) };
  return unit;
}

/** Vocabulary words by cosine to `word`, best first (none when the word is not in the vocabulary). */
function nearest(word: string): string[] {
  const { words, rows, index } = table();
  const i = index.get(word);
  if (i === undefined) return [];
  const scored: { j: number; s: number }[] = [];
  for (let j = 0; j < words.length; j++) {
    if (j === i) continue;
    let s = 0;
    for (let d = 0; d < GLOVE_DIMS; d++) s += rows[i * GLOVE_DIMS + d]! * rows[j * GLOVE_DIMS + d]!;
    scored.push({ j, s });
  }
  scored.sort((a, b) => b.s - a.s || a.j - b.j);
  return scored.slice(0, 50).map((x) => words[x.j]!);
}

/** The stand-in's reply to one question: a comma-separated line of GloVe neighbours of its words. */
export function standInReply(question: string): string {
  const asked = question.toLowerCase().match(/\p{L}+/gu) ?? [];
  const words = [...new Set(asked.filter((w) => searchTerms(w).length))];
  const used = new Set(searchTerms(question));
  const perWord = words.map((w) => {
    const out: string[] = [];
    for (const n of nearest(w)) {
      const stems = searchTerms(n);
      if (stems.length !== 1 || used.has(stems[0]!) || out.length >= PER_WORD) continue;
      used.add(stems[0]!);
      out.push(n);
    }
    return out;
  });
  const reply: string[] = [];
  for (let round = 0; round < PER_WORD; round++)
    for (const list of perWord) if (list[round] && reply.length < MAX_KEYWORDS) reply.push(list[round]!);
  return reply.join(', ');
}

/** The GloVe stand-in's replies to these questions. */
export function gloveReplies(questions: string[]): Record<string, string> {
  return Object.fromEntries(questions.map((q) => [q, standInReply(q)]));
}

/** The product's ScriptedModel answering each question's rewrite prompt with its scripted reply. */
export function scriptedRewriter(replies: Record<string, string>): (messages: ChatMessage[]) => AsyncIterable<string> {
  const model = new ScriptedModel(Object.entries(replies).map(([q, reply]) => ({ match: `Question: ${q}\n`, reply })));
  return (messages) => {
    const stream = model.replyFor(messages);
    if (!stream) throw new Error('the stand-in has no reply for this prompt');
    return stream;
  };
}
