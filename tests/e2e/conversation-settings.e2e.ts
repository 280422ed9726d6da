/**
 * The settings that shape a conversation, in the built extension (fixture models, real runtimes): a user's own avatar,
 * the memory of stated facts (on and off), and the debug panel's live thresholds and turn trace. Typed turns only;
 * the spoken ones are in conversation.e2e.ts.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Reply } from '../../core/protocol';
import { startFixtureHub, type FixtureHub } from './fixture-hub';
import { openTalkingPanel } from './talking-panel';
import { engineMarks, poll, request, sendFromPage, type ExtensionSession } from './harness';

let session: ExtensionSession;
let fixtures: FixtureHub;
let panel: Page;

const marks = () => engineMarks(panel);
/** Opens or closes the settings drawer from whatever state it is in, so one failed test does not fail the next. */
async function settingsDrawer(open: boolean): Promise<void> {
  const button = panel.getByTestId('settings-button');
  if ((await button.getAttribute('aria-expanded')) !== String(open)) await button.click();
  await poll(
    () => button.getAttribute('aria-expanded'),
    (v) => v === String(open),
  );
}

beforeAll(async () => {
  fixtures = await startFixtureHub();
  ({ session, panel } = await openTalkingPanel(fixtures));
});

afterAll(async () => {
  await session?.close();
  await fixtures?.close();
});

describe('the settings of a conversation in the built extension', () => {
  it('loads a user GLB avatar after validating it, rejects a broken file, and can go back to the built-in one', async () => {
    await settingsDrawer(true);
    await panel
      .getByTestId('avatar-file')
      .setInputFiles({ name: 'broken.glb', mimeType: 'model/gltf-binary', buffer: Buffer.from('not a glb at all') });
    await panel.getByTestId('avatar-error').waitFor({ state: 'visible' });
    const glb = readFileSync('public/avatars/sidetalk-default.glb');
    await panel.getByTestId('avatar-file').setInputFiles({ name: 'my-avatar.glb', mimeType: 'model/gltf-binary', buffer: glb });
    await poll(
      () => panel.getByTestId('avatar-current').innerText(),
      (t) => t.includes('my-avatar.glb'),
    );
    await poll(
      () => panel.locator('.sidetalk-avatar').getAttribute('data-status'),
      (s) => s === 'ready' || s === 'no-webgl',
      60_000,
    );
    await panel.reload();
    await settingsDrawer(true);
    await poll(
      () => panel.getByTestId('avatar-current').innerText(),
      (t) => t.includes('my-avatar.glb'),
    ); // kept across reloads
    await panel.getByTestId('avatar-default').click();
    await poll(
      () => panel.getByTestId('avatar-current').innerText(),
      (t) => t.includes('built-in'),
    );
    await settingsDrawer(false);
  });

  it('remembers a fact the user states, shows it in settings, and forgets it on request', async () => {
    await panel.getByTestId('composer').fill('My name is Ada and I live in Lisbon.');
    await panel.getByRole('button', { name: 'Send' }).click();
    await settingsDrawer(true);
    const facts = panel.getByTestId('memory-fact');
    await poll(
      () => facts.allInnerTexts(),
      (t) => t.join(' ').includes('Ada'),
      60_000,
    );
    expect((await facts.allInnerTexts()).join(' ')).toContain('Lisbon');
    const stored = await session.worker.evaluate(() => chrome.storage.local.get('memory'));
    expect(JSON.stringify(stored)).toContain('Ada');
    await panel.getByTestId('forget-all').click();
    await poll(
      () => facts.count(),
      (n) => n === 0,
    );
    const after = await session.worker.evaluate(() => chrome.storage.local.get('memory'));
    expect(JSON.stringify(after)).not.toContain('Ada');
    await settingsDrawer(false);
    await poll(
      () => panel.getByTestId('engine-state').innerText(),
      (t) => !/Thinking|Speaking/.test(t),
      60_000,
    );
  });

  it('with memory switched off, a stated fact is neither learned nor kept; switched on again, it is', async () => {
    const memoryText = async () => JSON.stringify(await sendFromPage<Reply<unknown>>(panel, request('memory/get', 'background')));
    await settingsDrawer(true);
    await panel.getByTestId('memory-toggle').uncheck();
    // CI once never showed the off line; if it happens again, say what the switch, the panel and the background hold.
    await panel
      .getByTestId('memory-off')
      .waitFor({ state: 'visible' })
      .catch(async (e: Error) => {
        const held = await sendFromPage(panel, request('settings/get', 'background'));
        const shown = await panel.getByTestId('memory-error').allInnerTexts();
        const checked = await panel.getByTestId('memory-toggle').isChecked();
        throw new Error(`${e.message}\nbackground: ${JSON.stringify(held)}\nerror shown: ${shown}\nchecked: ${checked}`);
      });
    let before = (await marks()).length;
    await panel.getByTestId('composer').fill('My name is Zed and I live in Oslo.');
    await panel.getByRole('button', { name: 'Send' }).click();
    // The engine reads the user's words for facts as soon as it has them, long before the reply is done.
    await poll(marks, (m) => m.slice(before).some((x) => x.name === 'done'), 90_000, 250);
    expect(await memoryText()).not.toMatch(/Zed|Oslo/);
    expect(JSON.stringify(await session.worker.evaluate(() => chrome.storage.local.get('memory')))).not.toMatch(/Zed|Oslo/);
    expect(await panel.getByTestId('memory-fact').count()).toBe(0);

    await panel.getByTestId('memory-toggle').check();
    await panel.getByTestId('memory-off').waitFor({ state: 'detached' });
    before = (await marks()).length;
    await panel.getByTestId('composer').fill('My name is Yara.');
    await panel.getByRole('button', { name: 'Send' }).click();
    await poll(
      () => panel.getByTestId('memory-fact').allInnerTexts(),
      (t) => t.join(' ').includes('Yara'),
      60_000,
    );
    await poll(marks, (m) => m.slice(before).some((x) => x.name === 'done'), 90_000, 250);
    await panel.getByTestId('forget-all').click();
    await poll(
      () => panel.getByTestId('memory-fact').count(),
      (n) => n === 0,
    );
    await settingsDrawer(false);
  });

  it('the debug panel changes an engine threshold live and rejects an out-of-range value', async () => {
    await settingsDrawer(true);
    await panel.getByTestId('debug-toggle').check();
    await panel.getByTestId('tunables-panel').waitFor({ state: 'visible' });
    await panel.locator('summary', { hasText: 'engine' }).click();
    const input = panel.getByTestId('tunable-engine.endpointSilenceMs');
    await input.fill('700');
    await input.dispatchEvent('change');
    // What the engine reads: the offscreen document's live value (the background owns it and sends it there).
    const read = () =>
      sendFromPage<Reply<Record<string, Record<string, number>>>>(
        panel,
        request('debug/tunables-live', 'offscreen', { context: 'offscreen' }),
      ).then((r) => (r.ok ? r.data.engine?.endpointSilenceMs : undefined));
    expect(await poll(read, (v) => v === 700)).toBe(700);
    await input.fill('-5');
    await input.dispatchEvent('change');
    await panel.locator('.tunables .notice').waitFor({ state: 'visible' });
    expect(await read()).toBe(700);
    await settingsDrawer(false);

    // With the debug panel on, a reply is traced across the contexts and shown as a waterfall, exported as JSON.
    await panel.getByTestId('composer').fill('what is 7 times 6');
    await panel.getByRole('button', { name: 'Send' }).click();
    await settingsDrawer(true);
    const waterfall = panel.getByTestId('turn-waterfall');
    await waterfall.waitFor({ state: 'visible' });
    const heardRow = panel.locator('[data-testid="waterfall-row"]:not([data-total=""])');
    await poll(
      async () => {
        await panel.getByTestId('waterfall-refresh').click();
        return heardRow.count();
      },
      (n) => n > 0,
      90_000,
      500,
    );
    const row = heardRow.last();
    expect(Number(await row.getAttribute('data-total'))).toBeGreaterThan(0);
    const hops = await row.locator('.waterfall-bar').evaluateAll((bars) => bars.map((b) => b.getAttribute('data-hop')));
    // A typed turn has no end of speech: its chain starts at the first sentence and ends at the first audible sample.
    expect(hops).toEqual(expect.arrayContaining(['tts-first-frame', 'panel-chunk', 'panel-audible']));
    const [download] = await Promise.all([panel.waitForEvent('download'), panel.getByTestId('waterfall-export').click()]);
    const exported = JSON.parse(readFileSync((await download.path())!, 'utf8')) as {
      stamps: { name: string; context: string }[];
      turns: { turnId: string }[];
    };
    expect(exported.turns.map((t) => t.turnId)).toContain(await row.getAttribute('data-turn'));
    expect(new Set(exported.stamps.map((s) => s.context))).toEqual(new Set(['offscreen', 'panel']));
    await settingsDrawer(false);
  });

  it('logged no console errors', () => {
    expect(session.errors).toEqual([]);
  });
});
