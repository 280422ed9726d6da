import { afterAll, beforeAll, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Reply } from '../../core/protocol';
import type { WeightsSnapshot } from '../../core/weights';
import { ASR_BUNDLES, LLM_BUNDLE, TTS_BUNDLE } from '../../models/registry';
import { startFixtureHub, type FixtureHub } from './fixture-hub';
import { contextTypes, launchExtension, poll, sendFromPage, type ExtensionSession } from './harness';
let session: ExtensionSession; let fixtures: FixtureHub; let panel: Page;
const request = (type: string, target: string, payload: unknown = {}) => ({ kind: 'request', type, target, payload });
const marks = () => sendFromPage<any>(panel, request('conversation/marks', 'offscreen')).then((r) => (r?.ok ? r.data : []));
beforeAll(async () => {
  fixtures = await startFixtureHub(); session = await launchExtension(); panel = await session.openPage('sidepanel.html');
  panel.on('console', (m) => console.log('[panel]', m.type(), m.text()));
  await sendFromPage(panel, request('settings/set', 'background', { patch: { mirrorBaseUrl: fixtures.hub.url } }));
  const ids = [LLM_BUNDLE.id, ASR_BUNDLES.moonshine.id, TTS_BUNDLE.id];
  await sendFromPage(panel, request('models/download', 'background', { bundleIds: ids }));
  await poll(() => sendFromPage<Reply<WeightsSnapshot | null>>(panel, request('models/state', 'background')), (r) => r.ok && ids.every((id) => r.data?.bundles.find((b) => b.id === id)?.status === 'complete'), 90_000, 250);
}, 200_000);
afterAll(async () => { await session?.close(); await fixtures?.close(); });
async function dump(label: string) {
  const state = await panel.locator('main.panel').getAttribute('data-state');
  const line = await panel.getByTestId('engine-state').innerText();
  const lines = await panel.locator('.line').allInnerTexts();
  const notice = await panel.getByTestId('conversation-notice').allInnerTexts();
  const m = await marks();
  console.log(label, JSON.stringify({ state, line, lines: lines.slice(-4), notice, marks: m.slice(-8).map((x: any) => `${x.turnId}:${x.name}`) }));
}
it('debug', async () => {
  await panel.getByTestId('composer').fill('what is 12 times 12'); await panel.getByRole('button', { name: 'Send' }).click();
  await poll(() => panel.locator('.line.assistant').allInnerTexts(), (l) => l.some((t) => t.includes('144')), 200_000);
  await dump('after warmup');
  await panel.getByTestId('composer').fill('tell me a long story about the sea'); await panel.getByRole('button', { name: 'Send' }).click();
  await poll(marks, (m) => m.some((x: any) => x.turnId >= 2 && x.name === 'first-speak'), 90_000, 50);
  await session.worker.evaluate(() => chrome.offscreen.closeDocument());
  await dump('closed');
  await poll(() => contextTypes(session.worker), (t) => t.includes('OFFSCREEN_DOCUMENT'), 30_000);
  await dump('recreated');
  await new Promise((r) => setTimeout(r, 3000));
  await panel.getByTestId('composer').fill('what is 7 times 8'); await panel.getByRole('button', { name: 'Send' }).click();
  for (let i = 0; i < 12; i++) { await new Promise((r) => setTimeout(r, 10_000)); await dump(`t+${(i + 1) * 10}s`); }
  console.log('errors', session.errors);
}, 400_000);
