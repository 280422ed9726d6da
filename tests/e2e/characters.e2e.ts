import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { Reply } from '../../core/protocol';
import { ASR_BUNDLES, LLM_BUNDLE, TTS_BUNDLE } from '../../models/registry';
import { chunk, sseText, startFakeOpenAiServer, textChunk, type FakeOpenAiServer } from '../fixtures/openai/fake-openai-server';
import { makeSilenceWav } from '../fixtures/audio/make-wav';
import { startFixtureHub, type FixtureHub } from './fixture-hub';
import { downloadModels, launchExtension, poll, sendFromPage, type ExtensionSession } from './harness';

let session: ExtensionSession;
let fixtures: FixtureHub;
let panel: Page;

const request = (type: string, target: string, payload: unknown = {}) => ({ kind: 'request', type, target, payload });
type Mark = { name: string; at: number; turnId: number };
const marks = async () => {
  const r = await sendFromPage<Reply<Mark[]>>(panel, request('conversation/marks', 'offscreen'));
  return r.ok ? r.data : [];
};

/** Records every audio chunk the offscreen document sends to the side panel: turn, peak level and caption text. */
async function listenToAudio(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as {
      __chunks: { turnId: string; peak: number; voiceId?: string; text?: string }[];
      __bc?: BroadcastChannel;
    };
    w.__chunks = [];
    w.__bc = new BroadcastChannel('sidetalk-audio');
    w.__bc.onmessage = (e: MessageEvent) => {
      const m = e.data as { kind: string; turnId: string; samples: Float32Array; voiceId?: string; text?: string };
      if (m.kind !== 'chunk') return;
      let peak = 0;
      for (const x of m.samples) peak = Math.max(peak, Math.abs(x));
      w.__chunks.push({
        turnId: m.turnId,
        peak,
        ...(m.voiceId ? { voiceId: m.voiceId } : {}),
        ...(m.text ? { text: m.text } : {}),
      });
    };
    // Notices are cleared from the panel by the next caption, so they are recorded as they arrive.
    const n = window as unknown as { __notices: string[] };
    n.__notices = [];
    chrome.runtime.onMessage.addListener((msg: { kind?: string; type?: string; payload?: { message?: string } }) => {
      if (msg.kind === 'event' && msg.type === 'event/notice' && msg.payload?.message) n.__notices.push(msg.payload.message);
    });
  });
}
const audioChunks = (page: Page) =>
  page.evaluate(() =>
    (window as unknown as { __chunks: { turnId: string; peak: number; voiceId?: string; text?: string }[] }).__chunks.slice(),
  );

async function openSettingsTab(tab: 'models' | 'characters' | 'voices' | 'server'): Promise<void> {
  if ((await panel.locator('#settings-drawer').count()) === 0) await panel.getByTestId('settings-button').click();
  await panel.getByTestId(`settings-tab-${tab}`).click();
}

async function typeAndSend(text: string): Promise<void> {
  await panel.getByTestId('composer').fill(text);
  await panel.getByRole('button', { name: 'Send' }).click();
}

/** The marks of the first turn that started after `from` (by its llm-start or first-speak), once it is done. */
async function turnMarks(from: number, timeoutMs = 60_000): Promise<string[]> {
  const all = await poll(
    marks,
    (m) => {
      const start = m.slice(from).find((x) => x.name === 'llm-start' || x.name === 'first-speak');
      return !!start && m.some((x) => x.name === 'reply-done' && x.turnId === start.turnId);
    },
    timeoutMs,
    250,
  );
  const turnId = all.slice(from).find((x) => x.name === 'llm-start' || x.name === 'first-speak')!.turnId;
  return all.filter((x) => x.turnId === turnId).map((x) => x.name);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const lastAssistantLine = async () => (await panel.locator('.line.assistant').allInnerTexts()).at(-1) ?? '';

beforeAll(async () => {
  fixtures = await startFixtureHub();
  session = await launchExtension({ extensionDir: fixtures.extensionDir, micWav: makeSilenceWav('characters-silence', 5) });
  panel = await session.openPage('sidepanel.html');
  await panel.setViewportSize({ width: 420, height: 900 });
  await downloadModels(panel, fixtures.hub.url, [LLM_BUNDLE.id, ASR_BUNDLES.moonshine.id, TTS_BUNDLE.id]);
  await listenToAudio(panel);
});

afterAll(async () => {
  await session?.close();
  await fixtures?.close();
});

describe('characters in the side panel', () => {
  it('lists the built-in characters in the header switcher and in Settings → Characters', async () => {
    const switcher = panel.getByTestId('character-switcher');
    await poll(
      () => switcher.locator('option').allInnerTexts(),
      (o) => o.includes('Sidetalk') && o.includes('Professor Marius'),
    );
    expect(await switcher.inputValue()).toBe('builtin:sidetalk');
    await openSettingsTab('characters');
    const list = panel.getByTestId('characters-settings');
    await list.getByText('Professor Marius').waitFor();
    expect(await list.locator('.chars-item').count()).toBe(2);
  });

  it('switching the character changes the voice: the greeting caption and a different voice in the audio', async () => {
    // A first typed turn loads the models and is spoken by Sidetalk (voice alba: the fixture's louder voice).
    await typeAndSend('what is 3 times 4');
    await poll(lastAssistantLine, (t) => t.includes('12'), 90_000);
    await poll(marks, (m) => m.some((x) => x.name === 'reply-done'), 60_000, 250);
    const first = await audioChunks(panel);
    expect(first.length).toBeGreaterThan(0);
    expect(new Set(first.map((c) => c.voiceId))).toEqual(new Set(['alba']));
    expect(median(first.map((c) => c.peak))).toBeGreaterThan(0.01);

    const before = (await audioChunks(panel)).length;
    await panel.getByTestId('character-switcher').selectOption('builtin:marius');
    // The greeting is the new character speaking: its caption shows and it is spoken with voice marius.
    await poll(lastAssistantLine, (t) => t.includes('Marius here'), 60_000);
    const greeting = await poll(
      async () => (await audioChunks(panel)).slice(before),
      (c) => c.length >= 3,
      60_000,
    );
    expect(new Set(greeting.map((c) => c.voiceId))).toEqual(new Set(['marius']));
    expect(greeting[0]!.text).toContain('Marius here');
    expect(median(greeting.map((c) => c.peak))).toBeGreaterThan(0.01);
    expect(await panel.getByTestId('character-switcher').inputValue()).toBe('builtin:marius');
    // Persisted in chrome.storage.local by the background.
    const stored = (await session.worker.evaluate(() => chrome.storage.local.get('characters'))) as {
      characters?: { activeId?: string };
    };
    expect(stored.characters?.activeId).toBe('builtin:marius');
  });

  it('duplicates, edits, exports and re-imports a character through the UI', async () => {
    await openSettingsTab('characters');
    const list = panel.getByTestId('characters-settings');
    await list.getByRole('button', { name: 'Duplicate Professor Marius' }).click();
    await list.getByText('Professor Marius copy').waitFor();
    // Edit the copy: a new name and a pronunciation.
    await list.getByRole('button', { name: 'Edit Professor Marius copy' }).click();
    const form = panel.locator('form.chars-form');
    await form.getByLabel('Name', { exact: true }).fill('Captain Ada');
    await form.getByRole('button', { name: 'Add pronunciation' }).click();
    await form.getByLabel('Word 1', { exact: true }).fill('Ada');
    await form.getByLabel('Say word 1 as', { exact: true }).fill('Ay da');
    await form.getByRole('button', { name: 'Save' }).click();
    await list.getByText('Captain Ada').waitFor();
    await poll(
      () => panel.getByTestId('character-switcher').locator('option').allInnerTexts(),
      (o) => o.includes('Captain Ada'),
    );

    const download = panel.waitForEvent('download');
    await list.getByRole('button', { name: 'Export Captain Ada' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^sidetalk-Captain-Ada-\d{4}-\d{2}-\d{2}\.json$/);
    const text = readFileSync((await file.path())!, 'utf8');
    const parsed = JSON.parse(text) as { format: string; characters: { name: string; pronunciations: unknown[] }[] };
    expect(parsed.format).toBe('sidetalk.characters');
    expect(parsed.characters[0]).toMatchObject({ name: 'Captain Ada', pronunciations: [{ word: 'Ada', sayAs: 'Ay da' }] });

    await list.getByRole('button', { name: 'Delete Captain Ada' }).click();
    await panel.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await poll(
      () => list.locator('.chars-item').count(),
      (n) => n === 2,
    );

    await list
      .locator('input[type=file]')
      .setInputFiles({ name: 'ada.json', mimeType: 'application/json', buffer: Buffer.from(text) });
    await list.getByText('Imported Captain Ada.').waitFor();
    await list.getByText('Captain Ada').first().waitFor();
    const all = (await sendFromPage<Reply<{ characters: { name: string; builtIn: boolean; pronunciations: unknown[] }[] }>>(
      panel,
      request('characters/list', 'background'),
    )) as { ok: true; data: { characters: { name: string; builtIn: boolean; pronunciations: unknown[] }[] } };
    const ada = all.data.characters.find((c) => c.name === 'Captain Ada');
    expect(ada).toMatchObject({ builtIn: false, pronunciations: [{ word: 'Ada', sayAs: 'Ay da' }] });
  });

  it('a bad import file shows a readable error and changes nothing', async () => {
    const list = panel.getByTestId('characters-settings');
    const count = await list.locator('.chars-item').count();
    await list
      .locator('input[type=file]')
      .setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"not": json') });
    await poll(
      () =>
        list
          .getByRole('alert')
          .innerText()
          .catch(() => ''),
      (t) => t.includes("isn't valid JSON"),
    );
    await list.locator('input[type=file]').setInputFiles({
      name: 'other.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify({ format: 'something-else', version: 1 })),
    });
    await poll(
      () =>
        list
          .getByRole('alert')
          .innerText()
          .catch(() => ''),
      (t) => t.includes("isn't a Sidetalk characters file"),
    );
    expect(await list.locator('.chars-item').count()).toBe(count);
  });
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
    expect(await turnMarks(marksBefore)).toEqual(expect.arrayContaining(['first-speak', 'playback-started', 'reply-done']));
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
    expect(names).toEqual(expect.arrayContaining(['llm-start', 'first-speak', 'reply-done']));
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
    expect(await turnMarks(marksBefore)).toContain('playback-started');
    // Stop using the server: the local model answers again.
    await form.getByRole('button', { name: 'Stop using server' }).click();
    await poll(
      () => session.worker.evaluate(() => chrome.storage.local.get('remoteLlm')) as Promise<{ remoteLlm: unknown }>,
      (s) => s.remoteLlm === null,
    );
  });

  it('logged no console errors', () => {
    expect(session.errors).toEqual([]);
  });
});
