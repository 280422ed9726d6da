import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decideOnFailure, listModels, RemoteAvailability, RemoteLlmError, testConnection } from '../../../core/remote-llm';
import { remoteLlmTunables, resetTunables } from '../../../core/tunables';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../../fixtures/openai/fake-openai-server';
import { ManualClock } from './manual-clock';

const KEY = 'sk-models-KEY-42';
let server: FakeOpenAiServer;
let clock: ManualClock;
beforeEach(async () => {
  server = await startFakeOpenAiServer();
  clock = new ManualClock();
});
afterEach(async () => {
  resetTunables('remoteLlm');
  await server.close();
});
const deps = () => ({ fetch: globalThis.fetch, clock });

describe('listModels (GET /v1/models)', () => {
  it('returns sorted unique model ids and sends the key as Bearer', async () => {
    server.setModels(['qwen2.5:7b', 'llama3.2:3b', 'qwen2.5:7b']);
    expect(await listModels({ baseUrl: server.baseUrl, apiKey: KEY }, deps())).toEqual(['llama3.2:3b', 'qwen2.5:7b']);
    expect(server.requests[0]).toMatchObject({ method: 'GET', path: '/v1/models' });
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('401 is an http_error without the key in the message', async () => {
    server.setModels({ kind: 'status', status: 401, body: JSON.stringify({ error: { message: `bad key ${KEY}` } }) });
    const r = await testConnection({ baseUrl: server.baseUrl, apiKey: KEY, model: 'x' }, deps());
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect([r.error.kind, r.error.status]).toEqual(['http_error', 401]);
      expect(r.error.message).not.toContain(KEY);
    }
  });

  it('a body that is not a model list is malformed', async () => {
    server.setModels({ kind: 'status', status: 200, body: '{"models": []}' });
    await expect(listModels({ baseUrl: server.baseUrl }, deps())).rejects.toMatchObject({ kind: 'malformed_stream' });
  });

  it('times out on a server that never answers', async () => {
    server.setModels({ kind: 'hang' });
    const p = listModels({ baseUrl: server.baseUrl }, deps());
    await server.waitForRequests(1);
    clock.advance(remoteLlmTunables.modelsTimeoutMs);
    await expect(p).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('testConnection says whether the chosen model exists', async () => {
    expect(await testConnection({ baseUrl: server.baseUrl, model: 'qwen2.5:7b' }, deps())).toEqual({
      ok: true,
      models: ['llama3.2:3b', 'qwen2.5:7b'],
      modelFound: true,
    });
    expect(await testConnection({ baseUrl: server.baseUrl, model: 'gpt-9' }, deps())).toMatchObject({
      ok: true,
      modelFound: false,
    });
  });
});

describe('fallback policy', () => {
  const err = (kind: RemoteLlmError['kind'], status?: number) => new RemoteLlmError(kind, 'x', status);

  it('an interruption stops silently, whatever the settings', () => {
    expect(decideOnFailure(err('aborted'), { fallbackToLocal: true, alreadySpoke: false })).toEqual({ action: 'stop' });
  });

  it('falls back to the local model with a caption notice when allowed and nothing was spoken yet', () => {
    expect(decideOnFailure(err('unreachable'), { fallbackToLocal: true, alreadySpoke: false })).toEqual({
      action: 'fallback_local',
      notice: "My model server isn't answering. Is it running? Using the local model for now.",
    });
  });

  it('speaks the error line when fallback is off or part of the answer was already spoken', () => {
    expect(decideOnFailure(err('http_error', 500), { fallbackToLocal: false, alreadySpoke: false })).toEqual({
      action: 'end_turn',
      say: 'My model server had a problem answering.',
    });
    expect(decideOnFailure(err('timeout'), { fallbackToLocal: true, alreadySpoke: true })).toEqual({
      action: 'end_turn',
      say: 'My model server is taking too long to answer.',
    });
  });

  it('skips a dead server for a while when fallback is allowed, then tries it again', () => {
    const a = new RemoteAvailability(() => clock.now());
    a.recordFailure(err('http_error', 500));
    expect(a.chooseBackend(true)).toBe('remote'); // a bad request is not a dead server
    a.recordFailure(err('unreachable'));
    expect(a.chooseBackend(true)).toBe('local');
    expect(a.chooseBackend(false)).toBe('remote'); // no fallback allowed: must try
    clock.advance(remoteLlmTunables.skipAfterFailureMs);
    expect(a.chooseBackend(true)).toBe('remote');
    a.recordFailure(err('timeout'));
    a.recordSuccess();
    expect(a.chooseBackend(true)).toBe('remote');
  });
});
