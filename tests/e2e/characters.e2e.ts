/**
 * Characters in the built extension (fixture models on the local hub): the switcher and the settings list, the voice
 * changing with the character, duplicate/edit/export/import and a bad import file. The bring-your-own model server:
 * remote-llm.e2e.ts; helpers: characters-shared.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { Reply } from '../../core/protocol';
import { poll, sendFromPage, type ExtensionSession } from './harness';
import {
  audioChunks,
  closeCharactersWorld,
  lastAssistantLineOf,
  marksOf,
  median,
  openSettingsTabIn,
  request,
  startCharactersWorld,
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

beforeAll(async () => {
  world = await startCharactersWorld();
  ({ session, panel } = world);
});

afterAll(async () => {
  await closeCharactersWorld(world);
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
    await poll(marks, (m) => m.some((x) => x.name === 'done'), 60_000, 250);
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

  it('logged no console errors', () => {
    expect(session.errors).toEqual([]);
  });
});
