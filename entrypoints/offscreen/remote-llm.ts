import type { LlmMessage } from '../../core/conversation/responder';
import { eventMessage, sendRequest, type Send } from '../../core/protocol';
import { RemoteAvailability, remoteReply, type RemoteLlmConfig, type RemoteReplyDeps } from '../../core/remote-llm';
import { systemClock } from '../../core/tools/clock';
import { TEST_HOOKS } from '../../core/build-flags';
import type { ScriptedModel } from '../../core/conversation/scripted-model';

type TurnDeps = Pick<RemoteReplyDeps, 'local' | 'runTool' | 'onCard'>;

/** One generation as the LLM boundary passed it on (test builds: `debug/llm-log`). */
export interface LlmLogEntry {
  source: 'local' | 'remote' | 'scripted';
  /** The prompt as the engine built it: each message's role and content (page questions: the quoted sections). */
  prompt: string;
  text: string;
  /** The in-browser model's own counts, once its answer is done (the prefix cache's share: `cached`). */
  tokens?: LlmTokenCounts;
}
export interface LlmTokenCounts {
  prompt: number;
  cached: number;
  generated: number;
}
const LOG_ENTRIES = 20;

/**
 * The conversation's language model: the user's own OpenAI-compatible server when one is configured (the config
 * lives in the background's chrome.storage.local and is read per request, so a change applies to the next turn),
 * else the in-browser model. Fetches run here, in the offscreen document, under the origin permission the user
 * granted in the side panel. Nothing here logs the config or the key.
 */
export class LanguageModel {
  private readonly availability = new RemoteAvailability(() => Date.now());

  /** Test builds only (`debug/llm-script`): the scripted model stand-in answers the prompts its rules match. */
  script: ScriptedModel | null = null;
  /** Test builds only (`debug/llm-log`): the last generations' prompts, what they streamed (raw), and who produced it. */
  readonly log: LlmLogEntry[] = [];

  constructor(
    private readonly send: Send,
    /** The in-browser model's counts for the answer it finished last (test builds log them). */
    private readonly localTokens: () => LlmTokenCounts | null = () => null,
  ) {}

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
    const scripted = TEST_HOOKS ? this.script?.replyFor(messages) : null;
    if (scripted) {
      yield* this.logged('scripted', messages, scripted);
      return;
    }
    const config = await this.config();
    if (!config) {
      yield* this.logged('local', messages, deps.local(messages, signal, tools));
      return;
    }
    yield* this.logged('remote', messages, this.remote(config, messages, signal, tools, deps));
  }

  /** Passes a stream on; test builds also keep its text for `debug/llm-log`. */
  private async *logged(
    source: LlmLogEntry['source'],
    messages: LlmMessage[],
    stream: AsyncIterable<string>,
  ): AsyncGenerator<string> {
    if (!TEST_HOOKS) return yield* stream;
    const entry: LlmLogEntry = { source, prompt: messages.map((m) => `${m.role}: ${m.content}`).join('\n'), text: '' };
    this.log.push(entry);
    if (this.log.length > LOG_ENTRIES) this.log.shift();
    for await (const delta of stream) {
      entry.text += delta;
      yield delta;
    }
    const tokens = source === 'local' ? this.localTokens() : null;
    if (tokens) entry.tokens = tokens;
  }

  private remote(
    config: RemoteLlmConfig,
    messages: LlmMessage[],
    signal: AbortSignal,
    tools: Record<string, unknown>[] | undefined,
    deps: TurnDeps,
  ): AsyncGenerator<string> {
    return remoteReply(
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
