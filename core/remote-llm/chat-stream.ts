// Streaming chat completions against an OpenAI-compatible server. Yields text deltas as they arrive and tool calls
// once assembled: servers stream a call as fragments keyed by `index` (the first carries id and function.name, the
// rest carry pieces of the JSON `arguments` string), so a call is complete only at finish_reason / [DONE].
// Timeouts: a first-token deadline (model load + prompt processing) and an idle deadline between chunks afterwards.
import { remoteLlmTunables } from '../tunables';
import { authHeaders, chatCompletionsUrl, type RemoteLlmConfig } from './config';
import { redact, RemoteLlmError } from './errors';
import { classifyFailure, httpError, linkedController, Watchdog, type RemoteDeps } from './request';
import { SseParser } from './sse-parser';

export interface ChatToolCallMessage {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A chat message in the OpenAI-compatible wire format a model server speaks (tool calls included). */
export type WireChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCallMessage[] }
  | { role: 'tool'; content: string; tool_call_id: string };

/** Same shape as core/tools `chatTemplateTools()`. */
export interface ChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface StreamChatRequest {
  messages: readonly WireChatMessage[];
  tools?: readonly ChatTool[];
  signal?: AbortSignal;
  temperature?: number;
  maxTokens?: number;
}

export interface AssembledToolCall {
  id: string;
  name: string;
  /** The raw JSON text as streamed; echo it back in the assistant message's tool_calls. */
  argumentsJson: string;
  /** Parsed arguments, or undefined when the JSON is broken (then argumentsError says why). */
  arguments: unknown;
  argumentsError?: string;
}

export type ChatStreamEvent =
  { type: 'text'; text: string } | { type: 'tool_call'; call: AssembledToolCall } | { type: 'done'; finishReason: string | null };

interface PartialCall {
  id: string;
  name: string;
  args: string;
}

export async function* streamChat(
  config: RemoteLlmConfig,
  req: StreamChatRequest,
  deps: RemoteDeps,
): AsyncGenerator<ChatStreamEvent, void, undefined> {
  const { ctrl, unlink } = linkedController(req.signal);
  const watchdog = new Watchdog(deps.clock, () => ctrl.abort());
  const fail = (e: unknown, during: 'connect' | 'stream') => classifyFailure(e, { userSignal: req.signal, watchdog, during });
  if (req.signal?.aborted) throw new RemoteLlmError('aborted', 'The request was cancelled.');

  const body: Record<string, unknown> = { model: config.model, messages: req.messages, stream: true };
  if (req.tools && req.tools.length > 0) body.tools = req.tools;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.maxTokens !== undefined) body.max_tokens = req.maxTokens;

  watchdog.arm('first_token', remoteLlmTunables.firstTokenTimeoutMs);
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    let res: Response;
    try {
      res = await deps.fetch(chatCompletionsUrl(config), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', ...authHeaders(config) },
        body: JSON.stringify(body),
        signal: ctrl.signal,
      });
    } catch (e) {
      throw fail(e, 'connect');
    }
    if (!res.ok) throw await httpError(res, config.apiKey);
    if (!res.body) throw new RemoteLlmError('malformed_stream', 'The model server sent an empty response.');

    const contentType = res.headers.get('content-type') ?? '';
    if (contentType.includes('application/json')) {
      // The server ignored stream: true and sent one whole completion.
      let json: unknown;
      try {
        json = JSON.parse(await res.text());
      } catch (e) {
        if (ctrl.signal.aborted) throw fail(e, 'stream');
        throw new RemoteLlmError('malformed_stream', 'The model server sent JSON that could not be parsed.');
      }
      watchdog.disarm();
      yield* wholeCompletion(json, config.apiKey);
      return;
    }
    if (contentType && !contentType.includes('text/event-stream') && !contentType.includes('text/plain')) {
      throw new RemoteLlmError(
        'malformed_stream',
        `The model server answered with ${contentType.split(';')[0]} instead of a stream.`,
      );
    }

    reader = res.body.getReader();
    const decoder = new TextDecoder();
    const sse = new SseParser();
    const calls = new Map<number, PartialCall>();
    let gotFirstToken = false;
    let finishReason: string | null = null;
    let sawDone = false;
    let sawFinish = false;

    const handle = (data: string): ChatStreamEvent[] => {
      if (data.trim() === '[DONE]') {
        sawDone = true;
        return [];
      }
      const chunk = parseChunk(data, config.apiKey);
      const out: ChatStreamEvent[] = [];
      const choice = chunk.choices?.[0];
      if (!choice) return out; // usage-only chunks, role-only chunks from some servers
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string' && delta.content.length > 0) {
        out.push({ type: 'text', text: delta.content });
      }
      for (const [position, frag] of (Array.isArray(delta.tool_calls) ? delta.tool_calls : []).entries()) {
        const index = typeof frag?.index === 'number' ? frag.index : position;
        const call = calls.get(index) ?? { id: '', name: '', args: '' };
        if (typeof frag?.id === 'string' && frag.id) call.id = frag.id;
        // OpenAI sends the name once; some servers repeat it in every fragment, so a repeat is not appended.
        const name = frag?.function?.name;
        if (typeof name === 'string' && name !== call.name) call.name += name;
        if (typeof frag?.function?.arguments === 'string') call.args += frag.function.arguments;
        else if (frag?.function?.arguments && typeof frag.function.arguments === 'object') {
          call.args += JSON.stringify(frag.function.arguments); // some servers send an object, not a string
        }
        if (call.args.length > remoteLlmTunables.maxToolArgumentChars) {
          throw new RemoteLlmError('malformed_stream', 'A tool call from the model server was too long.');
        }
        calls.set(index, call);
      }
      if (out.length > 0 || (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0)) gotFirstToken = true;
      if (typeof choice.finish_reason === 'string') {
        sawFinish = true;
        finishReason = choice.finish_reason;
      }
      return out;
    };

    for (;;) {
      // The idle deadline runs only while we wait on the server, never while the consumer holds a yielded event
      // (it may be busy with TTS); before the first token the first-token deadline from the request is still armed.
      if (gotFirstToken) watchdog.arm('idle', remoteLlmTunables.idleTimeoutMs);
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch (e) {
        throw fail(e, 'stream');
      }
      const text = step.done ? decoder.decode() : decoder.decode(step.value, { stream: true });
      const events = step.done ? [...sse.push(text), ...sse.end()] : sse.push(text);
      const outs: ChatStreamEvent[] = [];
      for (const ev of events) {
        if (ev.event === 'error') throw streamError(ev.data, config.apiKey);
        if (!sawDone) outs.push(...handle(ev.data));
      }
      if (gotFirstToken) watchdog.disarm();
      for (const out of outs) yield out;
      if (step.done || sawDone) break;
    }
    watchdog.disarm();
    if (!sawDone && !sawFinish) {
      throw new RemoteLlmError('malformed_stream', 'The model server ended the stream before finishing.');
    }
    for (const call of [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([, c]) => c)) {
      yield { type: 'tool_call', call: assemble(call) };
    }
    yield { type: 'done', finishReason };
  } finally {
    watchdog.disarm();
    unlink();
    // Consumer stopped early (barge-in) or we failed: close the connection so the server stops generating.
    ctrl.abort();
    reader?.cancel().catch(() => undefined);
  }
}

interface WireChunk {
  choices?: {
    delta?: {
      content?: unknown;
      tool_calls?: { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } }[];
    };
    message?: { content?: unknown; tool_calls?: { id?: unknown; function?: { name?: unknown; arguments?: unknown } }[] };
    finish_reason?: unknown;
  }[];
  error?: unknown;
}

function parseChunk(data: string, apiKey: string | undefined): WireChunk {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new RemoteLlmError('malformed_stream', 'The model server sent a stream line that is not JSON.');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new RemoteLlmError('malformed_stream', 'The model server sent an unexpected stream line.');
  }
  const chunk = json as WireChunk;
  if (chunk.error !== undefined) throw streamError(data, apiKey);
  if (chunk.choices !== undefined && !Array.isArray(chunk.choices)) {
    throw new RemoteLlmError('malformed_stream', 'The model server sent an unexpected stream line.');
  }
  return chunk;
}

/** An error reported inside a 200 stream (OpenRouter, vLLM do this when generation fails after the headers). */
function streamError(data: string, apiKey: string | undefined): RemoteLlmError {
  let message = '';
  try {
    const e = (JSON.parse(data) as { error?: { message?: unknown } | string }).error;
    const m = typeof e === 'string' ? e : e?.message;
    if (typeof m === 'string') message = `: ${redact(m, apiKey, 160)}`;
  } catch {
    // keep the generic line
  }
  return new RemoteLlmError('http_error', `The model server reported an error mid-stream${message}`, 500);
}

function* wholeCompletion(json: unknown, apiKey: string | undefined): Generator<ChatStreamEvent> {
  const chunk = json as WireChunk;
  if (typeof json !== 'object' || json === null) throw new RemoteLlmError('malformed_stream', 'Unexpected response shape.');
  if (chunk.error !== undefined) throw streamError(JSON.stringify(json), apiKey);
  const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  const message = choice?.message;
  if (!message) throw new RemoteLlmError('malformed_stream', 'The model server sent a response without a message.');
  if (typeof message.content === 'string' && message.content) yield { type: 'text', text: message.content };
  for (const [i, c] of (Array.isArray(message.tool_calls) ? message.tool_calls : []).entries()) {
    const args = c.function?.arguments;
    yield {
      type: 'tool_call',
      call: assemble({
        id: typeof c.id === 'string' ? c.id : `call_${i}`,
        name: typeof c.function?.name === 'string' ? c.function.name : '',
        args: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
      }),
    };
  }
  yield { type: 'done', finishReason: typeof choice?.finish_reason === 'string' ? choice.finish_reason : null };
}

function assemble(c: PartialCall): AssembledToolCall {
  const argumentsJson = c.args.trim() === '' ? '{}' : c.args;
  const id = c.id || `call_${c.name || 'tool'}`;
  try {
    return { id, name: c.name, argumentsJson, arguments: JSON.parse(argumentsJson) as unknown };
  } catch {
    return { id, name: c.name, argumentsJson, arguments: undefined, argumentsError: 'arguments are not valid JSON' };
  }
}
