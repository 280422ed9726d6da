/**
 * Keeps a chat within the model's token budget. The system message and the newest user turn always stay; the oldest
 * exchanges go first, whole (a user message with the assistant/tool messages after it), so a tool result is never
 * separated from its call. Compaction drops down to a target below the budget, not just under it, because every
 * compaction changes the prompt prefix and costs a full re-prefill: doing it rarely keeps prefix caching effective.
 */
import type { ChatMessage } from '../../core/conversation/chat-message';

export type { ChatMessage };

export interface CompactionResult {
  messages: ChatMessage[];
  /** Messages removed from the start of the history. */
  dropped: number;
  tokens: number;
}

/** `countTokens` returns the prompt length of a message list (chat template included). */
export function compactHistory(
  messages: readonly ChatMessage[],
  countTokens: (messages: readonly ChatMessage[]) => number,
  budget: number,
  targetRatio: number,
): CompactionResult {
  let tokens = countTokens(messages);
  if (tokens <= budget) return { messages: [...messages], dropped: 0, tokens };
  const system = messages[0]?.role === 'system' ? [messages[0]] : [];
  let rest = messages.slice(system.length);
  const target = Math.floor(budget * targetRatio);
  let dropped = 0;
  while (tokens > target) {
    // Next exchange boundary: the first user message after the first one.
    const nextUser = rest.findIndex((m, i) => i > 0 && m.role === 'user');
    if (nextUser <= 0) break; // only the newest exchange is left
    rest = rest.slice(nextUser);
    dropped += nextUser;
    tokens = countTokens([...system, ...rest]);
  }
  return { messages: [...system, ...rest], dropped, tokens };
}
