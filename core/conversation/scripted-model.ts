// The scripted model stand-in (test builds only; docs/security.md, "Test hooks and the release build"). It sits at
// the LLM boundary (entrypoints/offscreen/remote-llm.ts) and, when a rule's text appears anywhere in the prompt,
// answers with the rule's reply instead of the model, streamed in small pieces like real tokens. Tests make it play
// a model that obeys whatever the prompt says, e.g. a tool call a hostile page asks for, to prove that the product,
// not the model's good manners, keeps page text from calling tools.
import type { ChatMessage } from './chat-message';
import type { LlmScriptRule } from '../protocol/test-hooks';

/** Characters per streamed piece: small enough that tool-call markers arrive split across deltas. */
const PIECE_CHARS = 5;

export class ScriptedModel {
  constructor(private readonly rules: readonly LlmScriptRule[]) {}

  /** The scripted reply for this prompt, as a stream of deltas; null when no rule matches (the model answers). */
  replyFor(messages: readonly ChatMessage[]): AsyncIterable<string> | null {
    const prompt = messages.map((m) => m.content).join('\n');
    const rule = this.rules.find((r) => prompt.includes(r.match));
    if (!rule) return null;
    return (async function* () {
      if (rule.firstTokenDelayMs) await new Promise((r) => setTimeout(r, rule.firstTokenDelayMs));
      for (let i = 0; i < rule.reply.length; i += PIECE_CHARS) yield rule.reply.slice(i, i + PIECE_CHARS);
    })();
  }
}
