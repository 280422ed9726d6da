/**
 * The knob walk: every knob the debug panel lists is set through the request the panel sends (`tunables/set` to the
 * background, the owner), and every context that reads it (per the static reader map, tests/unit/tunables) is asked
 * for its live value: the background, the offscreen document and its two workers, the side panel, the popup and the
 * permissions page. Then: refusals are typed errors, the overrides are persisted, a re-created offscreen document and
 * its new workers start from them, a reloaded page pulls them, and Reset brings every context back to the defaults.
 * No models are needed (the model worker only starts its VAD).
 *
 * SIDETALK_E2E_EXTENSION_DIR points it at another build (e.g. one made with SIDETALK_OUT_DIR while others build).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { describeTunables, type TunableInfo, type TunableValue, type TunablesSnapshot } from '../../core/tunables';
import type { Reply } from '../../core/protocol';
import { buildReaderMap, DELIVERED, type ContextName } from '../unit/tunables/reader-map';
import { contextTypes, launchExtension, poll, request, sendFromPage, waitForOffscreen, type ExtensionSession } from './harness';

type State = { version: number; overrides: Record<string, TunableValue> };

let session: ExtensionSession;
let pages: Record<'sidepanel' | 'popup' | 'permissions', Page>;
const readers = buildReaderMap().readers;
const knobs = describeTunables();

beforeAll(async () => {
  session = await launchExtension(
    process.env.SIDETALK_E2E_EXTENSION_DIR ? { extensionDir: process.env.SIDETALK_E2E_EXTENSION_DIR } : {},
  );
  pages = {
    sidepanel: await session.openPage('sidepanel.html'),
    popup: await session.openPage('popup.html'),
    permissions: await session.openPage('permissions.html'),
  };
  await waitForOffscreen(session, pages.sidepanel);
});

afterAll(async () => {
  await session?.close();
});

async function ask<T>(type: string, target: string, payload: unknown = {}): Promise<Reply<T>> {
  return sendFromPage<Reply<T>>(pages.popup, request(type, target, payload));
}

async function must<T>(type: string, target: string, payload: unknown = {}): Promise<T> {
  const reply = await ask<T>(type, target, payload);
  if (!reply.ok) throw new Error(`${type}: ${reply.error.code}: ${reply.error.message}`);
  return reply.data;
}

/** What one context holds now, asked of that context itself. */
async function live(context: ContextName): Promise<TunablesSnapshot> {
  switch (context) {
    case 'background':
      return (await must<{ values: TunablesSnapshot }>('tunables/get', 'background')).values;
    case 'offscreen':
    case 'model-worker':
    case 'tts-worker':
      return must<TunablesSnapshot>('debug/tunables-live', 'offscreen', { context });
    case 'sidepanel':
    case 'popup':
    case 'permissions':
      return pages[context].evaluate(() =>
        (globalThis as unknown as { __sidetalkTunables: () => Promise<TunablesSnapshot> }).__sidetalkTunables(),
      );
    case 'page-script':
      throw new Error('the page script receives no tunables; the reader-map test keeps knobs out of it');
    case 'tts-decoder-worker':
      throw new Error('the voice decoder worker reads no tunables; the reader-map test keeps knobs out of it');
  }
}

/** A valid value different from the default (inside the knob's limits). */
function changed(knob: TunableInfo): TunableValue {
  const d = knob.defaultValue;
  if (typeof d === 'boolean') return !d;
  if (typeof d === 'string') return `${d}x`;
  const { min = -Infinity, max = Infinity, integer } = knob.limit;
  const candidates = integer ? [d + 1, d - 1] : [d * 1.25, d * 0.75, d + 0.1, d - 0.1, (min + max) / 2];
  const value = candidates.find((v) => Number.isFinite(v) && v !== d && v >= min && v <= max);
  if (value === undefined) throw new Error(`no valid non-default value for ${knob.path}`);
  return value;
}

/** Polls every context that reads each knob until it holds `expected(knob)`; fails naming what did not arrive. */
async function expectEverywhere(expected: (knob: TunableInfo) => TunableValue): Promise<number> {
  const missing = async () => {
    const snapshots = new Map<ContextName, TunablesSnapshot>();
    for (const context of DELIVERED) snapshots.set(context, await live(context));
    const out: string[] = [];
    for (const knob of knobs) {
      for (const context of readers.get(knob.path) ?? []) {
        const got = snapshots.get(context)?.[knob.section]?.[knob.key];
        if (got !== expected(knob)) out.push(`${knob.path} in ${context}: ${String(got)} ≠ ${String(expected(knob))}`);
      }
    }
    return out;
  };
  await poll(missing, (m) => m.length === 0, 15_000, 250).catch(async () => {
    expect(await missing()).toEqual([]);
  });
  return knobs.reduce((n, knob) => n + (readers.get(knob.path)?.size ?? 0), 0);
}

describe('tunables: one owner, delivered to every context that reads them', () => {
  it('the debug hooks refuse while the debug panel is off', async () => {
    const reply = await ask('debug/tunables-live', 'offscreen', { context: 'offscreen' });
    expect(reply).toMatchObject({
      ok: false,
      error: { code: 'handler_failed', message: expect.stringContaining('debug panel') },
    });
    await expect(live('popup')).rejects.toThrow('debug panel');
  });

  it('the debug panel lists exactly the registered knobs, every one of them read somewhere', async () => {
    await must('settings/set', 'background', { patch: { debugPanel: true } });
    const state = await must<{ values: TunablesSnapshot }>('tunables/get', 'background');
    const listed = Object.entries(state.values).flatMap(([section, values]) => Object.keys(values).map((k) => `${section}.${k}`));
    expect(listed.sort()).toEqual(knobs.map((k) => k.path).sort());
    for (const path of listed) expect(readers.get(path)?.size ?? 0, `${path} has no reader`).toBeGreaterThan(0);
    const panel = pages.sidepanel;
    await panel.getByTestId('settings-button').click();
    await panel.getByTestId('tunables-panel').waitFor({ state: 'visible' });
    const inputs = await panel
      .locator('[data-testid^="tunable-"]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
    expect(inputs.map((id) => id!.replace(/^tunable-/, '')).sort()).toEqual(listed.sort());
    await panel.getByTestId('settings-button').click();
  });

  it('starts the model worker (VAD only), so every worker can be asked', async () => {
    await must('vad/probe', 'offscreen', { durationMs: 300 });
    expect(await live('model-worker')).toHaveProperty('llm');
  });

  it('every knob set through the panel’s request arrives in every context that reads it', async () => {
    for (const knob of knobs) {
      const state = await must<State>('tunables/set', 'background', { path: knob.path, value: changed(knob) });
      expect(state.overrides[knob.path]).toBe(changed(knob));
    }
    const checks = await expectEverywhere(changed);
    expect(checks).toBeGreaterThanOrEqual(knobs.length);
  });

  it('refuses bad values with a clear protocol error and changes nothing', async () => {
    const before = await must<State>('tunables/get', 'background');
    const tooBig = await ask('tunables/set', 'background', { path: 'engine.vadOn', value: 5 });
    expect(tooBig).toEqual({
      ok: false,
      error: { code: 'handler_failed', message: '"tunables/set" failed: "engine.vadOn" must be <= 0.99' },
    });
    const unknown = await ask('tunables/set', 'background', { path: 'engine.nope', value: 1 });
    expect(unknown).toMatchObject({ ok: false, error: { message: expect.stringContaining('unknown key "engine.nope"') } });
    const wrongType = await ask('tunables/set', 'background', { path: 'engine.vadOn', value: 'high' });
    expect(wrongType).toMatchObject({ ok: false, error: { message: expect.stringContaining('expects a number') } });
    const malformed = await ask('tunables/set', 'background', { path: 'no dots', value: 1 });
    expect(malformed).toMatchObject({ ok: false, error: { code: 'malformed' } });
    expect((await must<State>('tunables/get', 'background')).version).toBe(before.version);
  });

  it('persists only the overrides, under one key', async () => {
    const stored = await session.worker.evaluate(() => chrome.storage.local.get('tunables'));
    const expected = Object.fromEntries(knobs.map((k) => [k.path, changed(k)]));
    expect((stored as { tunables: State }).tunables.overrides).toEqual(expected);
  });

  it('a re-created offscreen document and its new workers, and a reloaded page, start from the owner’s values', async () => {
    const before = await must<{ startedAt: number }>('offscreen/ping', 'offscreen');
    await session.worker.evaluate(() => chrome.offscreen.closeDocument());
    await poll(
      () => ask<{ startedAt: number }>('offscreen/ping', 'offscreen').catch(() => undefined),
      (r) => Boolean(r?.ok && r.data.startedAt !== before.startedAt),
      20_000,
      250,
    );
    expect(await contextTypes(session.worker)).toContain('OFFSCREEN_DOCUMENT');
    await must('vad/probe', 'offscreen', { durationMs: 300 });
    await pages.popup.reload();
    await expectEverywhere(changed);
  });

  it('Reset brings every context back to the defaults', async () => {
    expect(await must<State>('tunables/reset', 'background')).toMatchObject({ overrides: {} });
    await expectEverywhere((knob) => knob.defaultValue);
  });

  it('logged no console errors', () => {
    expect(session.errors).toEqual([]);
  });
});
