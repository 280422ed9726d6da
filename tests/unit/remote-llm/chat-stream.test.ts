import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  parseRemoteLlmSettings,
  RemoteLlmError,
  streamChat,
  type ChatStreamEvent,
  type RemoteLlmConfig,
} from '../../../core/remote-llm';
import { chatTemplateTools } from '../../../core/tools/definitions';
import { remoteLlmTunables, resetTunables } from '../../../core/tunables';
import {
  chunk,
  splitBytes,
  sseText,
  startFakeOpenAiServer,
  textChunk,
  type FakeOpenAiServer,
} from '../../fixtures/openai/fake-openai-server';
import { ManualClock } from './manual-clock';

const API_KEY = 'sk-test-SECRET-0123456789abcdef';
let server: FakeOpenAiServer;
let clock: ManualClock;
let config: RemoteLlmConfig;

beforeEach(async () => {
  server = await startFakeOpenAiServer();
  clock = new ManualClock();
  const parsed = parseRemoteLlmSettings({ baseUrl: server.baseUrl, model: 'fake-model', apiKey: API_KEY });
  if (!parsed.ok) throw new Error(parsed.error);
  config = parsed.config;
});

afterEach(async () => {
  resetTunables('remoteLlm');
  await server.close();
});

const deps = () => ({ fetch: globalThis.fetch, clock });
const messages = [{ role: 'user' as const, content: 'Hi there' }];

async function collect(it: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const out: ChatStreamEvent[] = [];
  for await (const ev of it) out.push(ev);
  return out;
}

async function failure(p: Promise<unknown>): Promise<RemoteLlmError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(RemoteLlmError);
    return e as RemoteLlmError;
  }
  throw new Error('expected a RemoteLlmError');
}

function texts(events: ChatStreamEvent[]): string {
  return events.map((e) => (e.type === 'text' ? e.text : '')).join('');
}

describe('streamChat: text', () => {
  const parts = ['Hel', 'lo — ', 'naïve café ', '🎉 ', 'wörld.'];

  it.each([1, 2, 3, 7, 64, 100_000])('yields text in order when the stream is split every %i bytes', async (size) => {
    server.scriptChat({ kind: 'sse', pieces: splitBytes(sseText(parts.map(textChunk)), size) });
    const events = await collect(streamChat(config, { messages }, deps()));
    expect(events.filter((e) => e.type === 'text').map((e) => (e.type === 'text' ? e.text : ''))).toEqual(parts);
    expect(events.at(-1)).toEqual({ type: 'done', finishReason: 'stop' });
  });

  it.each(['\r\n', '\r'] as const)('parses %j line endings, comments and keep-alives', async (eol) => {
    const body = `: keep-alive${eol}${eol}${sseText([textChunk('A'), textChunk('B')], { eol })[0]}`;
    server.scriptChat({ kind: 'sse', pieces: splitBytes([body], 5) });
    expect(texts(await collect(streamChat(config, { messages }, deps())))).toBe('AB');
  });

  it('sends the documented request with the API key as a Bearer token', async () => {
    const tools = chatTemplateTools();
    await collect(streamChat(config, { messages, tools, temperature: 0.3, maxTokens: 120 }, deps()));
    const req = server.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.headers['content-type']).toContain('application/json');
    expect(req.json).toEqual({ model: 'fake-model', messages, stream: true, tools, temperature: 0.3, max_tokens: 120 });
  });

  it('sends no Authorization header without a key', async () => {
    await collect(streamChat({ ...config, apiKey: undefined } as RemoteLlmConfig, { messages }, deps()));
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('accepts a server that ignores stream:true and answers one JSON completion', async () => {
    const whole = {
      id: 'x',
      object: 'chat.completion',
      created: 0,
      model: 'fake-model',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Whole answer.' }, finish_reason: 'stop' }],
    };
    server.scriptChat({ kind: 'status', status: 200, body: JSON.stringify(whole) });
    expect(await collect(streamChat(config, { messages }, deps()))).toEqual([
      { type: 'text', text: 'Whole answer.' },
      { type: 'done', finishReason: 'stop' },
    ]);
  });
});

describe('streamChat: tool calls', () => {
  it('assembles calls from delta.tool_calls fragments (index, id, name, argument pieces), split every 3 bytes', async () => {
    const frags = [
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"loca' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'calculate', arguments: '{"expr' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'tion": "Oslo"}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: 'ession": "2+2"}' } }] }),
    ];
    server.scriptChat({ kind: 'sse', pieces: splitBytes(sseText(frags, { finishReason: 'tool_calls' }), 3) });
    const events = await collect(streamChat(config, { messages, tools: chatTemplateTools() }, deps()));
    expect(events).toEqual([
      {
        type: 'tool_call',
        call: { id: 'call_a', name: 'get_weather', argumentsJson: '{"location": "Oslo"}', arguments: { location: 'Oslo' } },
      },
      {
        type: 'tool_call',
        call: { id: 'call_b', name: 'calculate', argumentsJson: '{"expression": "2+2"}', arguments: { expression: '2+2' } },
      },
      { type: 'done', finishReason: 'tool_calls' },
    ]);
  });

  it('reports broken argument JSON on the call instead of failing the turn', async () => {
    const frags = [
      chunk({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'calculate', arguments: '{"expression": ' } }] }),
    ];
    server.scriptChat({ kind: 'sse', pieces: sseText(frags, { finishReason: 'tool_calls' }) });
    const call = (await collect(streamChat(config, { messages }, deps()))).find((e) => e.type === 'tool_call');
    expect(call).toMatchObject({
      call: { name: 'calculate', arguments: undefined, argumentsError: 'arguments are not valid JSON' },
    });
  });

  it('cuts off runaway tool arguments as malformed', async () => {
    remoteLlmTunables.maxToolArgumentChars = 300;
    const frags = Array.from({ length: 20 }, (_, i) =>
      chunk({
        tool_calls: [
          {
            index: 0,
            ...(i === 0
              ? { id: 'c', function: { name: 'calculate', arguments: '' } }
              : { function: { arguments: 'x'.repeat(40) } }),
          },
        ],
      }),
    );
    server.scriptChat({ kind: 'sse', pieces: sseText(frags) });
    expect((await failure(collect(streamChat(config, { messages }, deps())))).kind).toBe('malformed_stream');
  });
});

describe('streamChat: failures', () => {
  it('401: http_error with status, spoken line, and the key absent from the message', async () => {
    server.scriptChat({
      kind: 'status',
      status: 401,
      body: JSON.stringify({
        error: { message: `Incorrect API key provided: ${API_KEY}`, type: 'invalid_request_error', code: 'invalid_api_key' },
      }),
    });
    const err = await failure(collect(streamChat(config, { messages }, deps())));
    expect(err.kind).toBe('http_error');
    expect(err.status).toBe(401);
    expect(err.message).toContain('Incorrect API key provided');
    expect(err.message).not.toContain(API_KEY);
    expect(err.message).not.toContain('SECRET');
    expect(err.spoken).toBe('My model server turned down the API key.');
  });

  it('500: http_error with status', async () => {
    server.scriptChat({ kind: 'status', status: 500, body: '{"error":{"message":"model crashed"}}' });
    const err = await failure(collect(streamChat(config, { messages }, deps())));
    expect([err.kind, err.status]).toEqual(['http_error', 500]);
    expect(err.spoken).toBe('My model server had a problem answering.');
  });

  it('connection refused: unreachable, with a spoken line and no key or URL in the message', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const err = await failure(collect(streamChat({ ...config, baseUrl: `http://127.0.0.1:${port}/v1` }, { messages }, deps())));
    expect(err.kind).toBe('unreachable');
    expect(err.spoken).toBe("My model server isn't answering. Is it running?");
    expect(err.message).not.toContain(API_KEY);
  });

  it('no first token before the deadline: timeout (first_token), and the connection is closed', async () => {
    server.scriptChat({ kind: 'hang' });
    const run = collect(streamChat(config, { messages }, deps()));
    await server.waitForRequests(1);
    clock.advance(remoteLlmTunables.firstTokenTimeoutMs);
    const err = await failure(run);
    expect([err.kind, err.phase]).toEqual(['timeout', 'first_token']);
    await server.clientClosed(0);
  });

  it('a stream that stalls after the first token: timeout (idle)', async () => {
    server.scriptChat({ kind: 'sse', pieces: [`data: ${JSON.stringify(textChunk('Hi'))}\n\n`], then: 'hang' });
    const it = streamChat(config, { messages }, deps());
    expect(await it.next()).toEqual({ done: false, value: { type: 'text', text: 'Hi' } });
    const next = it.next(); // arms the idle deadline and waits on the server
    clock.advance(remoteLlmTunables.idleTimeoutMs - 1);
    clock.advance(1);
    const err = await failure(next);
    expect([err.kind, err.phase]).toEqual(['timeout', 'idle']);
  });

  it.each([
    ['a non-JSON data line', 'data: {not json\n\n'],
    ['a JSON array line', 'data: [1,2]\n\n'],
    ['choices that is not an array', 'data: {"choices": 5}\n\n'],
  ])('malformed SSE (%s): malformed_stream', async (_name, bad) => {
    server.scriptChat({ kind: 'sse', pieces: [`data: ${JSON.stringify(textChunk('ok'))}\n\n`, bad, 'data: [DONE]\n\n'] });
    const err = await failure(collect(streamChat(config, { messages }, deps())));
    expect(err.kind).toBe('malformed_stream');
    expect(err.spoken).toBe("I couldn't understand what my model server sent back.");
  });

  it('an HTML page with 200 (wrong base URL): malformed_stream', async () => {
    server.scriptChat({ kind: 'status', status: 200, body: '<html>hello</html>', contentType: 'text/html' });
    expect((await failure(collect(streamChat(config, { messages }, deps())))).kind).toBe('malformed_stream');
  });

  it('a stream that ends without finish_reason or [DONE]: malformed_stream', async () => {
    server.scriptChat({ kind: 'sse', pieces: sseText([textChunk('cut')], { finishReason: null, done: false }) });
    expect((await failure(collect(streamChat(config, { messages }, deps())))).kind).toBe('malformed_stream');
  });

  it('an error object inside the stream: http_error with the key redacted', async () => {
    server.scriptChat({
      kind: 'sse',
      pieces: [`data: ${JSON.stringify({ error: { message: `overloaded for ${API_KEY}` } })}\n\n`],
    });
    const err = await failure(collect(streamChat(config, { messages }, deps())));
    expect(err.kind).toBe('http_error');
    expect(err.message).toContain('overloaded');
    expect(err.message).not.toContain(API_KEY);
  });

  it('the socket drops mid-stream: unreachable', async () => {
    server.scriptChat({ kind: 'sse', pieces: [`data: ${JSON.stringify(textChunk('Hel'))}\n\n`], then: 'destroy' });
    const events: ChatStreamEvent[] = [];
    const err = await failure(
      (async () => {
        for await (const ev of streamChat(config, { messages }, deps())) events.push(ev);
      })(),
    );
    expect(texts(events)).toBe('Hel');
    expect(err.kind).toBe('unreachable');
  });
});

describe('streamChat: abort', () => {
  it('abort mid-stream: aborted error, nothing spoken, server connection closed', async () => {
    server.scriptChat({ kind: 'sse', pieces: [`data: ${JSON.stringify(textChunk('One. '))}\n\n`], then: 'hang' });
    const ctrl = new AbortController();
    const seen: string[] = [];
    const err = await failure(
      (async () => {
        for await (const ev of streamChat(config, { messages, signal: ctrl.signal }, deps())) {
          if (ev.type === 'text') seen.push(ev.text);
          ctrl.abort();
        }
      })(),
    );
    expect(seen).toEqual(['One. ']);
    expect(err.kind).toBe('aborted');
    expect(err.spoken).toBe('');
    await server.clientClosed(0);
  });

  it('an already aborted signal never reaches the server', async () => {
    const ctrl = new AbortController();
    ctrl.abort();
    expect((await failure(collect(streamChat(config, { messages, signal: ctrl.signal }, deps())))).kind).toBe('aborted');
    expect(server.requests).toHaveLength(0);
  });

  it('a consumer that stops reading (break) closes the connection', async () => {
    server.scriptChat({ kind: 'sse', pieces: [`data: ${JSON.stringify(textChunk('First'))}\n\n`], then: 'hang' });
    for await (const ev of streamChat(config, { messages }, deps())) {
      expect(ev).toEqual({ type: 'text', text: 'First' });
      break;
    }
    await server.clientClosed(0);
    expect(clock.pending).toBe(0);
  });
});
