/**
 * What the fault e2e files share (faults-download.e2e.ts, faults-conversation.e2e.ts): one extension session on the
 * fixture hub (tools on a local fake API where a file needs them), and the helpers that read what the user sees and
 * what the engine marked.
 */
import type { Page } from 'playwright-core';
import type { Reply } from '../../core/protocol';
import type { WeightsSnapshot } from '../../core/weights';
import { ASR_BUNDLES, LLM_BUNDLE, TTS_BUNDLE } from '../../models/registry';
import { startFakeApiServer, type FakeApiServer } from '../fixtures/apis/fake-api-server';
import { startFixtureHub, type FixtureHub } from './fixture-hub';
import { launchExtension, pointToolsAt, poll, sendFromPage, type ExtensionSession } from './harness';

export const request = (type: string, target: string, payload: unknown = {}) => ({ kind: 'request', type, target, payload });
export type Mark = { name: string; at: number; turnId: string };
/** Turn ids travel as `<prefix>t<seq>` (core/engine/turn.ts `turnIdFor`); the engine numbers its turns in order. */
export const turnSeq = (turnId: string) => Number(/t(\d+)$/.exec(turnId)?.[1] ?? NaN);
export const marksOf = (page: Page) =>
  // While the document is being re-created nobody answers (undefined): no marks yet.
  sendFromPage<Reply<Mark[]> | undefined>(page, request('conversation/marks', 'offscreen')).then((r) => (r?.ok ? r.data : []));
export const lastTurnOf = (all: Mark[]) => Math.max(-1, ...all.map((m) => turnSeq(m.turnId)));
export const weightsStateOf = (page: Page) =>
  sendFromPage<Reply<WeightsSnapshot | null>>(page, request('weights/state', 'background'));
export const bundleOf = (r: Reply<WeightsSnapshot | null>, id: string) =>
  r.ok ? r.data?.bundles.find((b) => b.id === id) : undefined;

export const WHISPER = ASR_BUNDLES.whisper;
export const CONVERSATION_BUNDLES = [LLM_BUNDLE.id, ASR_BUNDLES.moonshine.id, TTS_BUNDLE.id];

export async function say(page: Page, text: string): Promise<void> {
  await page.getByTestId('composer').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

/** Waits for a new assistant line (after `before` lines) matching `ok`, and returns it. */
export async function assistantLine(
  page: Page,
  before: number,
  ok: (text: string) => boolean,
  timeoutMs = 120_000,
): Promise<string> {
  const lines = await poll(
    () => page.locator('.line.assistant').allInnerTexts(),
    (all) => all.slice(before).some(ok),
    timeoutMs,
    200,
  );
  return lines.slice(before).find(ok)!;
}

export async function openPanelIn(session: ExtensionSession): Promise<Page> {
  const page = await session.openPage('sidepanel.html');
  await page.setViewportSize({ width: 420, height: 860 });
  return page;
}

export interface FaultsWorld {
  session: ExtensionSession;
  fixtures: FixtureHub;
  /** The fake tool API, when the file asked for it. */
  api: FakeApiServer | null;
  panel: Page;
}

/** The fixture hub, the extension pinned to it with its mirror set, one side panel; tools on the fake API if asked. */
export async function startFaultsWorld(options: { toolsApi: boolean }): Promise<FaultsWorld> {
  const fixtures = await startFixtureHub();
  const api = options.toolsApi ? await startFakeApiServer() : null;
  const session = await launchExtension({ extensionDir: fixtures.extensionDir });
  const panel = await openPanelIn(session);
  await sendFromPage(panel, request('settings/set', 'background', { patch: { mirrorBaseUrl: fixtures.hub.url } }));
  // Tool look-ups go to the local fake API (set before the first tool call: the background builds its clients once).
  if (api) await pointToolsAt(session, api.baseUrl);
  return { session, fixtures, api, panel };
}

export async function closeFaultsWorld(world: Partial<FaultsWorld> | undefined): Promise<void> {
  await world?.session?.close();
  await world?.fixtures?.close();
  await world?.api?.close();
}
