/**
 * What the character e2e files share (characters.e2e.ts, remote-llm.e2e.ts): one extension session on the fixture
 * hub with the conversation models downloaded and the side panel's audio recorded, and the helpers that read what the
 * user sees and what the engine marked.
 */
import type { Page } from 'playwright-core';
import type { Reply } from '../../core/protocol';
import { ASR_BUNDLES, LLM_BUNDLE, TTS_BUNDLE } from '../../models/registry';
import { makeSilenceWav } from '../fixtures/audio/make-wav';
import { startFixtureHub, type FixtureHub } from './fixture-hub';
import { downloadModels, launchExtension, poll, sendFromPage, type ExtensionSession } from './harness';

export const request = (type: string, target: string, payload: unknown = {}) => ({ kind: 'request', type, target, payload });
export type Mark = { name: string; at: number; turnId: string };
export const marksOf = async (panel: Page) => {
  const r = await sendFromPage<Reply<Mark[]>>(panel, request('conversation/marks', 'offscreen'));
  return r.ok ? r.data : [];
};

/** Records every audio chunk the offscreen document sends to the side panel: turn, peak level and caption text. */
export async function listenToAudio(page: Page): Promise<void> {
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
export const audioChunks = (page: Page) =>
  page.evaluate(() =>
    (window as unknown as { __chunks: { turnId: string; peak: number; voiceId?: string; text?: string }[] }).__chunks.slice(),
  );

export async function openSettingsTabIn(panel: Page, tab: 'models' | 'characters' | 'voices' | 'server'): Promise<void> {
  if ((await panel.locator('#settings-drawer').count()) === 0) await panel.getByTestId('settings-button').click();
  await panel.getByTestId(`settings-tab-${tab}`).click();
}

export async function typeAndSendIn(panel: Page, text: string): Promise<void> {
  await panel.getByTestId('composer').fill(text);
  await panel.getByRole('button', { name: 'Send' }).click();
}

/** The marks of the first turn that started after `from` (by its llm-start or first-speak), once it is done. */
export async function turnMarksOf(panel: Page, from: number, timeoutMs = 60_000): Promise<string[]> {
  const all = await poll(
    () => marksOf(panel),
    (m) => {
      const start = m.slice(from).find((x) => x.name === 'llm-start' || x.name === 'first-speak');
      return !!start && m.some((x) => x.name === 'done' && x.turnId === start.turnId);
    },
    timeoutMs,
    250,
  );
  const turnId = all.slice(from).find((x) => x.name === 'llm-start' || x.name === 'first-speak')!.turnId;
  return all.filter((x) => x.turnId === turnId).map((x) => x.name);
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
export const lastAssistantLineOf = async (panel: Page) => (await panel.locator('.line.assistant').allInnerTexts()).at(-1) ?? '';

export interface CharactersWorld {
  session: ExtensionSession;
  fixtures: FixtureHub;
  panel: Page;
}

/** The fixture hub, the extension on it with a silent microphone, one side panel, the conversation models. */
export async function startCharactersWorld(): Promise<CharactersWorld> {
  const fixtures = await startFixtureHub();
  const session = await launchExtension({ extensionDir: fixtures.extensionDir, micWav: makeSilenceWav('characters-silence', 5) });
  const panel = await session.openPage('sidepanel.html');
  await panel.setViewportSize({ width: 420, height: 900 });
  await downloadModels(panel, fixtures.hub.url, [LLM_BUNDLE.id, ASR_BUNDLES.moonshine.id, TTS_BUNDLE.id]);
  await listenToAudio(panel);
  return { session, fixtures, panel };
}

export async function closeCharactersWorld(world: Partial<CharactersWorld> | undefined): Promise<void> {
  await world?.session?.close();
  await world?.fixtures?.close();
}
