import type { LlmMessage } from '../../core/conversation/responder';
import { eventMessage, sendRequest, type Send } from '../../core/protocol';
import { RemoteAvailability, remoteReply, type RemoteLlmConfig, type RemoteReplyDeps } from '../../core/remote-llm';
import { systemClock } from '../../core/tools/clock';

type TurnDeps = Pick<RemoteReplyDeps, 'local' | 'runTool' | 'onCard'>;

/**
 * The conversation's language model: the user's own OpenAI-compatible server when one is configured (the config
 * lives in the background's chrome.storage.local and is read per request, so a change applies to the next turn),
 * else the in-browser model. Fetches run here, in the offscreen document, under the origin permission the user
 * granted in the side panel. Nothing here logs the config or the key.
 */
export class LanguageModel {
  private readonly availability = new RemoteAvailability(() => Date.now());

  constructor(private readonly send: Send) {}

  private async config(): Promise<RemoteLlmConfig | null> {
    const reply = await sendRequest(this.send, 'remote-llm/get', {}, 5_000);
    return reply.ok ? reply.data.config : null;
  }

  async *generate(
    messages: LlmMessage[],
    signal: AbortSignal,
    tools: Record<string, unknown>[] | undefined,
    deps: TurnDeps,
  ): AsyncGenerator<string> {
    const config = await this.config();
    if (!config) {
      yield* deps.local(messages, signal, tools);
      return;
    }
    yield* remoteReply(
      {
        ...deps,
        config,
        availability: this.availability,
        fetch: globalThis.fetch.bind(globalThis),
        clock: systemClock,
        onNotice: (level, message) => void this.send(eventMessage('event/notice', { level, message })).catch(() => undefined),
      },
      messages,
      signal,
      tools,
    );
  }
}
