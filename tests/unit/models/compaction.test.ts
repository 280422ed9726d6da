// History compaction and the prefix-match rule, as pure functions (the runtime-level behaviour is in llm-runtime.test).
import { describe, expect, it } from 'vitest';
import { compactHistory, type ChatMessage } from '../../../models/llm/compaction';
import { isStrictPrefix, PrefixCache } from '../../../models/llm/prefix-cache';

// A token count that behaves like a chat template: per-message overhead plus content length.
const count = (messages: readonly ChatMessage[]) => messages.reduce((n, m) => n + 4 + m.content.length, 1);

function history(exchanges: number): ChatMessage[] {
  const out: ChatMessage[] = [{ role: 'system', content: 'system prompt' }];
  for (let i = 0; i < exchanges; i++) {
    out.push({ role: 'user', content: `question ${i} `.repeat(5) });
    out.push({ role: 'assistant', content: `tool call ${i}` });
    out.push({ role: 'tool', content: `tool result ${i} `.repeat(3) });
    out.push({ role: 'assistant', content: `answer ${i} `.repeat(6) });
  }
  out.push({ role: 'user', content: 'latest question' });
  return out;
}

describe('compactHistory', () => {
  it('leaves a history within budget untouched', () => {
    const h = history(2);
    expect(compactHistory(h, count, 10_000, 0.7)).toEqual({ messages: h, dropped: 0, tokens: count(h) });
  });

  it('drops whole oldest exchanges down to the target, keeping system and the newest user turn', () => {
    const h = history(20);
    const budget = 600;
    const r = compactHistory(h, count, budget, 0.7);
    expect(r.tokens).toBeLessThanOrEqual(budget * 0.7);
    expect(r.tokens).toBe(count(r.messages));
    expect(r.messages[0]).toEqual(h[0]);
    expect(r.messages.at(-1)).toEqual(h.at(-1));
    expect(r.messages[1]!.role).toBe('user'); // never starts mid-exchange (no orphan tool result)
    expect(r.dropped).toBe(h.length - r.messages.length);
    expect(r.dropped % 4).toBe(0);
  });

  it('keeps the newest exchange even when it alone exceeds the budget', () => {
    const h = history(3);
    const r = compactHistory(h, count, 10, 0.7);
    expect(r.messages).toEqual([h[0], h.at(-1)]);
  });
});

describe('prefix cache rule', () => {
  it('accepts only a strict, exact prefix', () => {
    expect(isStrictPrefix([1, 2], [1, 2, 3])).toBe(true);
    expect(isStrictPrefix([1, 2, 3], [1, 2, 3])).toBe(false); // nothing left to prefill
    expect(isStrictPrefix([1, 9], [1, 2, 3])).toBe(false);
    expect(isStrictPrefix([], [1])).toBe(false);
  });

  it('disposes a cache that does not match and hands over one that does', async () => {
    let disposed = 0;
    const make = (len: number) => ({ get_seq_length: () => len, dispose: async () => void disposed++ });
    const pc = new PrefixCache<ReturnType<typeof make>>();
    const cache = make(3);
    pc.store(cache, [1, 2, 3, 4]);
    expect(pc.size).toBe(3);
    expect(await pc.take([1, 2, 3, 4, 5])).toEqual({ cache, cachedTokens: 3 });
    pc.store(cache, [1, 2, 3, 4]);
    expect(await pc.take([1, 2, 7, 4, 5])).toEqual({ cache: null, cachedTokens: 0 });
    expect(disposed).toBe(1);
    expect(pc.size).toBe(0);
  });
});
