// Heading-aware chunking: the Markdown-marked page text is split into sections by heading, then each section into
// chunks of about `chunkTokens` at paragraph, then sentence, then word boundaries. Every chunk remembers its
// heading path so answers can say which section they came from.
import { pageTunables } from '../tunables';
import { estimateTokens, type TokenCounter } from './tokens';

export interface Section {
  index: number;
  heading: string;
  level: number;
  /** Headings from the top of the page down to this section. */
  path: string[];
  text: string;
}

export interface Chunk {
  id: number;
  sectionIndex: number;
  heading: string;
  path: string[];
  text: string;
  tokens: number;
}

export interface ChunkedPage {
  sections: Section[];
  chunks: Chunk[];
  totalTokens: number;
  /** True when the page exceeded maxIndexedTokens and only its beginning was indexed. */
  truncated: boolean;
}

export function splitSections(text: string): Section[] {
  const sections: Section[] = [];
  const stack: { level: number; heading: string }[] = [];
  let current: Section = { index: 0, heading: '', level: 0, path: [], text: '' };
  const lines: string[] = [];
  const flush = (): void => {
    current.text = lines.join('\n').trim();
    lines.length = 0;
    if (current.text || current.heading) sections.push({ ...current, index: sections.length });
  };
  for (const line of text.split('\n')) {
    const h = /^(#{1,6})\s+(.+)$/.exec(line);
    if (!h) {
      lines.push(line);
      continue;
    }
    flush();
    const level = h[1]!.length;
    while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
    stack.push({ level, heading: h[2]!.trim() });
    current = { index: 0, heading: h[2]!.trim(), level, path: stack.map((s) => s.heading), text: '' };
  }
  flush();
  return sections;
}

/** Splits text into pieces no larger than max tokens, preferring paragraph, then sentence, then word breaks. */
function splitToFit(text: string, max: number, count: TokenCounter): string[] {
  if (count(text) <= max) return [text];
  const paragraphs = text.split(/\n{2,}/);
  const units = paragraphs.length > 1 ? paragraphs : text.split(/(?<=[.!?])\s+/);
  if (units.length === 1) {
    const words = text.split(/\s+/);
    if (words.length === 1) {
      const out: string[] = [];
      for (let i = 0; i < text.length; i += max * 4) out.push(text.slice(i, i + max * 4));
      return out;
    }
    const mid = Math.ceil(words.length / 2);
    return [...splitToFit(words.slice(0, mid).join(' '), max, count), ...splitToFit(words.slice(mid).join(' '), max, count)];
  }
  const out: string[] = [];
  let acc = '';
  for (const u of units.flatMap((u) => splitToFit(u, max, count))) {
    const joined = acc ? `${acc}${paragraphs.length > 1 ? '\n\n' : ' '}${u}` : u;
    if (acc && count(joined) > max) {
      out.push(acc);
      acc = u;
    } else acc = joined;
  }
  if (acc) out.push(acc);
  return out;
}

export interface ChunkOptions {
  chunkTokens?: number;
  maxIndexedTokens?: number;
  countTokens?: TokenCounter;
}

/**
 * The page's chunks one at a time, in page order, as they are made: an index can take them in slices and answer
 * from what it holds so far (core/page/page-index.ts). Stops before the chunk that would pass maxIndexedTokens;
 * `truncated` in the returned value says whether it did.
 */
export function* streamChunks(text: string, opts: ChunkOptions = {}): Generator<Chunk, { truncated: boolean }> {
  const max = opts.chunkTokens ?? pageTunables.chunkTokens;
  const limit = opts.maxIndexedTokens ?? pageTunables.maxIndexedTokens;
  const count = opts.countTokens ?? estimateTokens;
  let total = 0;
  let id = 0;
  for (const s of splitSections(text)) {
    const pieces = s.text ? splitToFit(s.text, max, count) : [];
    for (const piece of pieces) {
      const tokens = count(piece);
      if (total + tokens > limit) return { truncated: true };
      total += tokens;
      yield { id: id++, sectionIndex: s.index, heading: s.heading, path: s.path, text: piece, tokens };
    }
  }
  return { truncated: false };
}

export function chunkPage(text: string, opts: ChunkOptions = {}): ChunkedPage {
  const chunks: Chunk[] = [];
  const stream = streamChunks(text, opts);
  let step = stream.next();
  while (!step.done) {
    chunks.push(step.value);
    step = stream.next();
  }
  return {
    sections: splitSections(text),
    chunks,
    totalTokens: chunks.reduce((a, c) => a + c.tokens, 0),
    truncated: step.value.truncated,
  };
}
