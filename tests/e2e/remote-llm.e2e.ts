/**
 * The bring-your-own model server in the built extension (a fake OpenAI-compatible server behind a CORS front, fixture
 * models on the local hub for the local fallback): connect and save, a remote reply spoken like a local one, a remote
 * tool call, and the server going down with and without the fallback. Characters: characters.e2e.ts; helpers:
 * characters-shared.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { chunk, sseText, startFakeOpenAiServer, textChunk, type FakeOpenAiServer } from '../fixtures/openai/fake-openai-server';
import { poll, sendFromPage, type ExtensionSession } from './harness';
import {
  closeCharactersWorld,
  lastAssistantLineOf,
  marksOf,
  openSettingsTabIn,
  request,
  startCharactersWorld,
  turnMarksOf,
  typeAndSendIn,
  type CharactersWorld,
} from './characters-shared';

let world: CharactersWorld;
let session: ExtensionSession;
let panel: Page;

const marks = () => marksOf(panel);
const openSettingsTab = (tab: Parameters<typeof openSettingsTabIn>[1]) => openSettingsTabIn(panel, tab);
const typeAndSend = (text: string) => typeAndSendIn(panel, text);
const lastAssistantLine = () => lastAssistantLineOf(panel);
const turnMarks = (from: number, timeoutMs?: number) => turnMarksOf(panel, from, timeoutMs);

beforeAll(async () => {
  world = await startCharactersWorld();
  ({ session, panel } = world);
  // Where characters.e2e.ts leaves the conversation: the models loaded by a first turn, Professor Marius active.
  await typeAndSend('what is 3 times 4');
  await poll(lastAssistantLine, (t) => t.includes('12'), 90_000);
  await poll(marks, (m) => m.some((x) => x.name === 'done'), 60_000, 250);
  await sendFromPage(panel, request('characters/set-active', 'background', { id: 'builtin:marius' }));
});

afterAll(async () => {
  await closeCharactersWorld(world);
});

/** A CORS-adding front for the fake server: Chrome can't be made to grant an optional host permission headlessly. */
async function startCorsProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const to = new URL(target);
  const server: Server = createServer((req, res) => {
    const cors = {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Headers': 'Content-Type, Authorization, Accept',
      'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
    };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors);
      res.end();
      return;
    }
    const upstream = httpRequest(
      { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: { ...req.headers, host: to.host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, { ...up.headers, ...cors });
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('bring your own model server', () => {
  let openai: FakeOpenAiServer;
  let proxy: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    openai = await startFakeOpenAiServer();
    proxy = await startCorsProxy(openai.baseUrl);
    // Headless Chromium can't show the permission prompt; the click handler's call is recorded and granted here.
    await panel.evaluate(() => {
      const w = window as unknown as { __permissionRequests: unknown[] };
      w.__permissionRequests = [];
      Object.defineProperty(chrome.permissions, 'request', {
        configurable: true,
        value: (p: unknown) => {
          w.__permissionRequests.push(p);
          return Promise.resolve(true);
        },
      });
    });
  });

  afterAll(async () => {
    await proxy?.close();
    await openai?.close();
  });

  it('tests the connection, lists the models and saves the server after asking for its origin', async () => {
    await openSettingsTab('server');
    const form = panel.getByTestId('model-server-settings');
    await form.getByLabel('Server address').fill(`${proxy.url}/v1`);
    await form.getByRole('button', { name: 'Test connection' }).click();
    await form.getByText('Connected: the server offers 2 models.').waitFor();
    await form.locator('select').selectOption('qwen2.5:7b');
    await form.getByLabel('API key (optional)').fill('sk-test-secret');
    await form.getByRole('button', { name: 'Save and use' }).click();
    await form.getByText('Saved. Sidetalk now answers with qwen2.5:7b.').waitFor();
    const asked = await panel.evaluate(() => (window as unknown as { __permissionRequests: unknown[] }).__permissionRequests);
    expect(asked).toEqual([{ origins: [`${proxy.url}/*`] }, { origins: [`${proxy.url}/*`] }]);
    const stored = (await session.worker.evaluate(() => chrome.storage.local.get('remoteLlm'))) as { remoteLlm: unknown };
    expect(stored.remoteLlm).toMatchObject({
      baseUrl: `${proxy.url}/v1`,
      model: 'qwen2.5:7b',
      apiKey: 'sk-test-secret',
      fallbackToLocal: true,
    });
    // Never in page-visible storage.
    expect(await panel.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }))).not.toContain(
      'sk-test',
    );
  });

  it('answers a typed question from the server, spoken like a local reply', async () => {
    openai.scriptChat({ kind: 'sse', pieces: sseText([textChunk('The remote model '), textChunk('says hello from afar.')]) });
    const before = openai.requests.length;
    const marksBefore = (await marks()).length;
    await typeAndSend('tell me something nice');
    await poll(lastAssistantLine, (t) => t.includes('says hello from afar'), 60_000);
    expect(await turnMarks(marksBefore)).toEqual(expect.arrayContaining(['first-speak', 'first-audio', 'done']));
    const sent = openai.requests.slice(before).find((r) => r.path === '/v1/chat/completions')!;
    expect(sent.headers.authorization).toBe('Bearer sk-test-secret');
    const body = sent.json as {
      model: string;
      stream: boolean;
      messages: { role: string; content: string }[];
      tools?: unknown[];
    };
    expect(body).toMatchObject({ model: 'qwen2.5:7b', stream: true });
    // The active character's persona is the system prompt (Marius since the switch above).
    expect(body.messages[0]).toMatchObject({ role: 'system' });
    expect(body.messages[0]!.content).toContain('You are Marius');
    expect(body.messages.at(-1)).toEqual({ role: 'user', content: 'tell me something nice' });
    expect(body.tools?.length).toBeGreaterThan(0);
  });

  it('runs a tool the server asks for through its tool-calling fields and speaks the follow-up', async () => {
    const call = chunk({
      tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'calculate', arguments: '' } }],
    });
    const args = chunk({ tool_calls: [{ index: 0, function: { arguments: '{"expression":"12 * 12"}' } }] });
    openai.scriptChat(
      { kind: 'sse', pieces: sseText([call, args], { finishReason: 'tool_calls' }) },
      { kind: 'sse', pieces: sseText([textChunk('A dozen dozens is one hundred forty-four.')]) },
    );
    const before = openai.requests.length;
    await typeAndSend('how many eggs are in a dozen dozens');
    await poll(lastAssistantLine, (t) => t.includes('one hundred forty-four'), 60_000);
    await panel.getByTestId('card-calculation').waitFor({ state: 'visible' });
    const chats = openai.requests.slice(before).filter((r) => r.path === '/v1/chat/completions');
    expect(chats).toHaveLength(2);
    const follow = chats[1]!.json as {
      messages: { role: string; content: string | null; tool_call_id?: string; tool_calls?: unknown[] }[];
      tools?: unknown;
    };
    expect(follow.tools).toBeUndefined();
    expect(follow.messages.at(-2)).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'call_1', function: { name: 'calculate' } }],
    });
    expect(follow.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
    expect(follow.messages.at(-1)!.content).toContain('144');
  });

  it('server down with fallback allowed: a notice, and the local model answers the same turn', async () => {
    await proxy.close();
    const marksBefore = (await marks()).length;
    await typeAndSend('tell me a story about the sea');
    const notices = () => panel.evaluate(() => (window as unknown as { __notices: string[] }).__notices.slice());
    await poll(
      notices,
      (n) => n.some((t) => t === "My model server isn't answering. Is it running? Using the local model for now."),
      60_000,
    );
    const names = await turnMarks(marksBefore, 90_000);
    expect(names).toEqual(expect.arrayContaining(['llm-start', 'first-speak', 'done']));
    expect(await lastAssistantLine()).not.toContain("isn't answering");
  });

  it('server down with fallback off: the assistant says so in a short spoken line', async () => {
    const stored = (await session.worker.evaluate(() => chrome.storage.local.get('remoteLlm'))) as {
      remoteLlm: Record<string, unknown>;
    };
    // Through the settings form: untick the fallback and save again.
    await openSettingsTab('server');
    const form = panel.getByTestId('model-server-settings');
    await form.getByLabel('Fall back to the local model if the server fails').uncheck();
    await form.getByRole('button', { name: 'Save and use' }).click();
    await poll(
      () =>
        session.worker.evaluate(() => chrome.storage.local.get('remoteLlm')) as Promise<{ remoteLlm: Record<string, unknown> }>,
      (s) => s.remoteLlm.fallbackToLocal === false,
    );
    expect(stored.remoteLlm.baseUrl).toBe(`${proxy.url}/v1`);
    const marksBefore = (await marks()).length;
    await typeAndSend('what should I cook tonight');
    await poll(lastAssistantLine, (t) => t.includes("My model server isn't answering. Is it running?"), 60_000);
    expect(await turnMarks(marksBefore)).toContain('first-audio');
    // Stop using the server: the local model answers again, and the background gives the origin's access back.
    // (Headless Chromium never really granted it, so the worker's chrome.permissions.remove is recorded here.)
    await session.worker.evaluate(() => {
      const g = globalThis as unknown as { __removed: unknown[] };
      g.__removed = [];
      Object.defineProperty(chrome.permissions, 'remove', {
        configurable: true,
        value: (p: unknown) => {
          g.__removed.push(p);
          return Promise.resolve(true);
        },
      });
    });
    await form.getByRole('button', { name: 'Stop using server' }).click();
    await poll(
      () => session.worker.evaluate(() => chrome.storage.local.get('remoteLlm')) as Promise<{ remoteLlm: unknown }>,
      (s) => s.remoteLlm === null,
    );
    const removed = await poll(
      () => session.worker.evaluate(() => (globalThis as unknown as { __removed: unknown[] }).__removed),
      (r) => r.length > 0,
    );
    expect(removed).toEqual([{ origins: [`${proxy.url}/*`] }]);
  });

  it('refuses plain http to another computer in the form, before asking Chrome for anything', async () => {
    const form = panel.getByTestId('model-server-settings');
    const asked = () =>
      panel.evaluate(() => (window as unknown as { __permissionRequests: unknown[] }).__permissionRequests.length);
    const before = await asked();
    await form.getByLabel('Server address').fill('http://192.168.1.20:8000/v1');
    await form.getByRole('button', { name: 'Test connection' }).click();
    await form.getByText(/Use https:\/\/ for a server on another computer/).waitFor();
    expect(await asked()).toBe(before);
    const stored = (await session.worker.evaluate(() => chrome.storage.local.get('remoteLlm'))) as { remoteLlm: unknown };
    expect(stored.remoteLlm).toBeNull();
  });

  it('logged no console errors', () => {
    expect(session.errors).toEqual([]);
  });
});
