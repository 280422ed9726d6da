/**
 * What makes random-weight graphs behave like a conversation's models where the benches need it to: the LLM's
 * tokenizer decoding ids as words with clause breaks, and the head bias that makes Smart Turn answer "complete".
 * Shared by the in-browser GPU bench's hub (gpu-hub.ts) and the Node pipeline bench (bench/product/pipeline-hub.ts).
 */
import { readFile, writeFile } from 'node:fs/promises';

/** Head bias of the fixture's Smart Turn (bench/stages/smart-turn-graph.ts SMART_TURN_FIXTURE): "complete" for speech. */
export const TURN_HEAD_BIAS = 4;

const SYLLABLES =
  'ba be bi bo da de di do fa fe ka ke ki ko la le li lo ma me mi mo na ne ni no pa pe pi po ra re ri ro sa se si so ta te tu'.split(
    ' ',
  );

/**
 * The fixture tokenizer decodes the ids past its printable characters as placeholders (`⟨12345⟩`), which hold no
 * space or punctuation: a reply of random tokens would reach the sentence chunker's first break only at its 200-character
 * cap. Here each such id decodes to a unique three-syllable word with a leading space, every 7th with a comma and every
 * 10th with a full stop, so a reply of random tokens is cut into clauses and sentences about as often as a spoken answer
 * (core/text, docs/benchmarks.md). The ids, and so the graph's work per token, are unchanged.
 */
export async function wordlikeTokenizer(file: string): Promise<void> {
  const tok = JSON.parse(await readFile(file, 'utf8')) as { model: { vocab: Record<string, number> } };
  const vocab: Record<string, number> = {};
  const n = SYLLABLES.length;
  for (const [content, id] of Object.entries(tok.model.vocab)) {
    if (!content.startsWith('⟨')) {
      vocab[content] = id;
      continue;
    }
    const word = ` ${SYLLABLES[id % n]}${SYLLABLES[Math.floor(id / n) % n]}${SYLLABLES[Math.floor(id / (n * n)) % n]}`;
    vocab[`${word}${id % 10 === 0 ? '.' : id % 7 === 0 ? ',' : ''}`] = id;
  }
  tok.model.vocab = vocab;
  await writeFile(file, JSON.stringify(tok));
}
