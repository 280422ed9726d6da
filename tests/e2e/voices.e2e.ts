import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Reply } from '../../core/protocol';
import { serializeVoice } from '../../core/tts/voice-store';
import type { WeightsSnapshot } from '../../core/weights';
import { TTS_BUNDLE } from '../../models/registry';
import { makeSpeechWav } from '../fixtures/audio/make-wav';
import { presetVoice } from '../fixtures/pocket/generate';
import { startFixtureHub, type FixtureHub } from './fixture-hub';
import { launchExtension, poll, screenshotColours, sendFromPage, type ExtensionSession } from './harness';

let session: ExtensionSession;
let fixtures: FixtureHub;
let panel: Page;

const request = (type: string, target: string, payload: unknown = {}) => ({ kind: 'request', type, target, payload });
type Chunk = { turnId: string; peak: number; voiceId?: string };

/** Records the audio chunks the offscreen document sends to the side panel (turn, voice, peak). */
async function listenToAudio(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __chunks: Chunk[]; __bc?: BroadcastChannel };
    w.__chunks = [];
    w.__bc = new BroadcastChannel('sidetalk-audio');
    w.__bc.onmessage = (e: MessageEvent) => {
      const m = e.data as { kind: string; turnId: string; samples: Float32Array; voiceId?: string };
      if (m.kind !== 'chunk') return;
      let peak = 0;
      for (const x of m.samples) peak = Math.max(peak, Math.abs(x));
      w.__chunks.push({ turnId: m.turnId, peak, ...(m.voiceId ? { voiceId: m.voiceId } : {}) });
    };
  });
}
const chunks = () => panel.evaluate(() => (window as unknown as { __chunks: Chunk[] }).__chunks.slice());

async function openPanel(): Promise<void> {
  panel = await session.openPage('sidepanel.html');
  await panel.setViewportSize({ width: 420, height: 900 });
  await listenToAudio(panel);
}

async function openTab(tab: 'characters' | 'voices'): Promise<void> {
  if ((await panel.locator('#settings-drawer').count()) === 0) await panel.getByTestId('settings-button').click();
  await panel.getByTestId(`settings-tab-${tab}`).click();
}

const voicesPanel = () => panel.getByTestId('voices-panel');

type Clone = { id: string; name: string; usable: boolean; consentStatement: string };
async function clones(): Promise<Clone[]> {
  const reply = await sendFromPage<Reply<{ clones: Clone[] }>>(panel, request('voices/list', 'offscreen'));
  if (!reply.ok) throw new Error(reply.error.message);
  return reply.data.clones;
}
const importInput = () => voicesPanel().getByTestId('voice-import-file');
const statusText = (text: string) => voicesPanel().getByTestId('voices-status').filter({ hasText: text });

/** Preview one clone (by its exact name) and return the chunks it played, after the button is free again. */
async function previewClone(name: string): Promise<Chunk[]> {
  const button = voicesPanel().getByRole('button', { name: `Preview ${name}`, exact: true });
  const before = (await chunks()).length;
  await button.click();
  const played = await poll(
    async () => (await chunks()).slice(before),
    (c) => c.length >= 3,
    60_000,
  );
  await poll(
    () => button.innerText(),
    (t) => t === 'Preview',
    60_000,
  );
  return played;
}

/** The exported "Renamed voice" file and the id inside it. */
let exported: Buffer;
let exportedId: string;

beforeAll(async () => {
  fixtures = await startFixtureHub();
  session = await launchExtension({
    extensionDir: fixtures.extensionDir,
    micWav: makeSpeechWav('voices-mic', 'This is my own voice, recorded for a clone.', 0.5, 1),
  });
  await openPanel();
  await sendFromPage(panel, request('settings/set', 'background', { patch: { mirrorBaseUrl: fixtures.hub.url } }));
  await sendFromPage(panel, request('weights/download', 'background', { bundleIds: [TTS_BUNDLE.id] }));
  await poll(
    () => sendFromPage<Reply<WeightsSnapshot | null>>(panel, request('weights/state', 'background')),
    (r) => r.ok && r.data?.bundles.find((b) => b.id === TTS_BUNDLE.id)?.status === 'complete',
    60_000,
    250,
  );
});

afterAll(async () => {
  await session?.close();
  await fixtures?.close();
});

describe('voices in settings', () => {
  it('lists the bundle’s preset voices, and Preview plays audio frames in that voice', async () => {
    await openTab('voices');
    await voicesPanel().getByTestId('voice-alba').waitFor({ timeout: 60_000 });
    await voicesPanel().getByTestId('voice-marius').waitFor();
    await voicesPanel().getByRole('button', { name: 'Preview Marius' }).click();
    const played = await poll(chunks, (c) => c.length >= 3, 60_000);
    expect(new Set(played.map((c) => c.voiceId))).toEqual(new Set(['marius']));
    // Preview turns have their own ids: the engine's turn ids never match them, so it ignores their playback.
    expect(played.every((c) => c.turnId.startsWith('preview-'))).toBe(true);
    expect(Math.max(...played.map((c) => c.peak))).toBeGreaterThan(0.01);
    await voicesPanel()
      .getByRole('button', { name: 'Preview Marius' })
      .filter({ hasText: 'Preview' })
      .waitFor({ timeout: 60_000 });
  });

  it('cloning needs the consent box: the button stays disabled until it is ticked', async () => {
    const form = voicesPanel().getByTestId('clone-form');
    const submit = form.getByTestId('clone-submit');
    expect(await submit.isDisabled()).toBe(true);
    await form
      .getByTestId('clone-file')
      .setInputFiles(makeSpeechWav('clone-upload', 'Hello, this is a sample of my voice for cloning.', 0.2, 0.2));
    await form.getByTestId('clone-clip').waitFor();
    expect(await submit.isDisabled()).toBe(true); // audio, but no consent
    await form.getByTestId('clone-consent').check();
    expect(await submit.isDisabled()).toBe(false);
    await form.getByTestId('clone-consent').uncheck();
    expect(await submit.isDisabled()).toBe(true);
    // The offscreen document refuses a clone without consent even if a sender skips the UI.
    const reply = await sendFromPage<Reply<unknown>>(
      panel,
      request('voices/clone', 'offscreen', { name: 'x', wavBase64: 'UklGRg==' }),
    );
    expect(reply.ok).toBe(false);
  });

  it('a file that is not audio is refused with a readable message', async () => {
    const form = voicesPanel().getByTestId('clone-form');
    await form
      .getByTestId('clone-file')
      .setInputFiles({ name: 'notes.wav', mimeType: 'audio/wav', buffer: Buffer.from('these are not audio samples at all') });
    await poll(
      () =>
        form
          .getByRole('alert')
          .innerText()
          .catch(() => ''),
      (t) => t.includes('isn’t audio Sidetalk can read'),
    );
  });

  it('clones an uploaded voice with consent: listed as synthetic, playable, renamable', async () => {
    const form = voicesPanel().getByTestId('clone-form');
    await form
      .getByTestId('clone-file')
      .setInputFiles(makeSpeechWav('clone-upload', 'Hello, this is a sample of my voice for cloning.', 0.2, 0.2));
    await form.getByTestId('clone-clip').waitFor();
    await form.getByTestId('clone-name').fill('Test voice');
    await form.getByTestId('clone-consent').check();
    await form.getByTestId('clone-submit').click();
    const row = voicesPanel().getByTestId('cloned-voice').filter({ hasText: 'Test voice' });
    await row.waitFor({ timeout: 60_000 });
    expect(await row.innerText()).toContain('synthetic');
    // Consent is reset after a clone: the next one needs a fresh tick.
    expect(await form.getByTestId('clone-consent').isChecked()).toBe(false);

    const list = (await sendFromPage(panel, request('voices/list', 'offscreen'))) as {
      ok: true;
      data: { clones: { id: string; name: string; synthetic: boolean; consentStatement: string }[] };
    };
    const clone = list.data.clones.find((c) => c.name === 'Test voice')!;
    expect(clone).toMatchObject({ synthetic: true, consentStatement: expect.stringContaining('speaker’s permission') });

    const before = (await chunks()).length;
    await row.getByRole('button', { name: 'Preview Test voice' }).click();
    const played = await poll(
      async () => (await chunks()).slice(before),
      (c) => c.length >= 3,
      60_000,
    );
    expect(new Set(played.map((c) => c.voiceId))).toEqual(new Set([clone.id]));

    await row.getByRole('button', { name: 'Rename Test voice' }).click();
    await voicesPanel().getByLabel('New name for Test voice').fill('Renamed voice');
    await voicesPanel().getByRole('button', { name: 'Save' }).click();
    await voicesPanel().getByTestId('cloned-voice').filter({ hasText: 'Renamed voice' }).waitFor();
    expect(await screenshotColours(panel, 'voices-settings')).toBeGreaterThan(20);
  });

  it('records a sample from the microphone', async () => {
    const form = voicesPanel().getByTestId('clone-form');
    await form.getByTestId('clone-record').click();
    await form.getByTestId('clone-record').filter({ hasText: 'Stop recording' }).waitFor();
    await new Promise((r) => setTimeout(r, 2_000));
    await form.getByTestId('clone-record').click();
    const text = await poll(
      () =>
        form
          .getByTestId('clone-clip')
          .innerText()
          .catch(() => ''),
      (t) => t.includes('s of audio ready'),
      15_000,
    );
    expect(Number.parseFloat(text)).toBeGreaterThan(1);
  });

  it('keeps clones across a restart of the offscreen document and re-adds them to the TTS', async () => {
    await panel.close();
    await session.worker.evaluate(() => chrome.offscreen.closeDocument());
    await openPanel();
    await openTab('voices');
    const row = voicesPanel().getByTestId('cloned-voice').filter({ hasText: 'Renamed voice' });
    await row.waitFor({ timeout: 60_000 });
    await row.getByRole('button', { name: 'Preview Renamed voice' }).click();
    const played = await poll(chunks, (c) => c.length >= 3, 60_000);
    expect(played[0]!.voiceId).toMatch(/^clone-/);
  });

  it('a cloned voice can be chosen for a character', async () => {
    await openTab('characters');
    const list = panel.getByTestId('characters-settings');
    await list.getByRole('button', { name: 'Duplicate Sidetalk' }).click();
    await list.getByRole('button', { name: 'Edit Sidetalk copy' }).click();
    const form = panel.locator('form.chars-form');
    const voice = form.locator('select');
    await poll(
      () => voice.locator('option').allInnerTexts(),
      (o) => o.includes('Renamed voice (cloned, synthetic)'),
      60_000,
    );
    await voice.selectOption({ label: 'Renamed voice (cloned, synthetic)' });
    await form.getByRole('button', { name: 'Save' }).click();
    await list.getByText('Sidetalk copy').waitFor();
    const all = (await sendFromPage(panel, request('characters/list', 'background'))) as {
      ok: true;
      data: { characters: { name: string; voice: { kind: string; voiceId: string } }[] };
    };
    expect(all.data.characters.find((c) => c.name === 'Sidetalk copy')!.voice).toMatchObject({
      kind: 'cloned',
      voiceId: expect.stringMatching(/^clone-/),
    });
  });

  it('exports a clone as a file: the stored STVOICE bytes with the consent inside', async () => {
    await openTab('voices');
    const row = voicesPanel().getByTestId('cloned-voice').filter({ hasText: 'Renamed voice' });
    await row.waitFor({ timeout: 60_000 });
    const download = panel.waitForEvent('download');
    await row.getByRole('button', { name: 'Export voice Renamed voice' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('Renamed-voice.stvoice');
    exported = readFileSync((await file.path())!);
    expect(exported.subarray(0, 7).toString('latin1')).toBe('STVOICE');
    const headerLength = exported.readUInt32LE(9);
    const header = JSON.parse(exported.subarray(13, 13 + headerLength).toString('utf8')) as { id: string };
    expect(header).toMatchObject({
      id: expect.stringMatching(/^clone-/),
      name: 'Renamed voice',
      synthetic: true,
      consent: { statement: expect.stringContaining('speaker’s permission'), acceptedAt: expect.any(Number) },
    });
    exportedId = header.id;
    await statusText('Saved Renamed-voice.stvoice').waitFor();
    // The request answers with the same bytes the UI saved.
    const reply = await sendFromPage<Reply<{ fileName: string; bytesBase64: string }>>(
      panel,
      request('voices/export', 'offscreen', { id: exportedId }),
    );
    expect(reply.ok && reply.data.fileName).toBe('Renamed-voice.stvoice');
    expect(reply.ok && Buffer.from(reply.data.bytesBase64, 'base64').equals(exported)).toBe(true);
  });

  it('deletes a clone after a confirmation', async () => {
    await openTab('voices');
    const row = voicesPanel().getByTestId('cloned-voice').filter({ hasText: 'Renamed voice' });
    await row.waitFor({ timeout: 60_000 });
    await row.getByRole('button', { name: 'Delete Renamed voice' }).click();
    await row.getByRole('button', { name: 'Confirm delete Renamed voice' }).click();
    await poll(
      () => voicesPanel().getByTestId('cloned-voice').count(),
      (n) => n === 0,
    );
  });

  it('imports the exported file: the voice is back under its id and speaks', async () => {
    await importInput().setInputFiles({ name: 'Renamed-voice.stvoice', mimeType: 'application/octet-stream', buffer: exported });
    await statusText('Imported “Renamed voice”').waitFor({ timeout: 60_000 });
    await voicesPanel().getByTestId('cloned-voice').filter({ hasText: 'Renamed voice' }).waitFor();
    expect(await clones()).toEqual([
      expect.objectContaining({
        id: exportedId,
        name: 'Renamed voice',
        usable: true,
        consentStatement: expect.stringContaining('speaker’s permission'),
      }),
    ]);
    const played = await previewClone('Renamed voice');
    expect(new Set(played.map((c) => c.voiceId))).toEqual(new Set([exportedId]));
    expect(Math.max(...played.map((c) => c.peak))).toBeGreaterThan(0.01);
  });

  it('importing the same file again adds a copy under a new id and name; the first is kept', async () => {
    await importInput().setInputFiles({ name: 'Renamed-voice.stvoice', mimeType: 'application/octet-stream', buffer: exported });
    await statusText('Imported “Renamed voice (2)”').waitFor({ timeout: 60_000 });
    const list = await clones();
    expect(list.map((c) => c.name).sort()).toEqual(['Renamed voice', 'Renamed voice (2)']);
    expect(list.find((c) => c.name === 'Renamed voice')!.id).toBe(exportedId);
    const copyId = list.find((c) => c.name === 'Renamed voice (2)')!.id;
    expect(copyId).toMatch(/^clone-/);
    expect(copyId).not.toBe(exportedId);
    // The worker never had this id before: add-voice at import made it speakable without a reload.
    const played = await previewClone('Renamed voice (2)');
    expect(new Set(played.map((c) => c.voiceId))).toEqual(new Set([copyId]));
  });

  it('refuses damaged files, a file that is not a voice and a voice of another model; the list stays as it was', async () => {
    const before = await clones();
    const headerLength = exported.readUInt32LE(9);
    const badHeader = Buffer.from(exported);
    badHeader[13] = 0x23; // the header's "{" becomes "#"
    const badPayload = Buffer.from(exported);
    badPayload[13 + headerLength] = 0x58; // the tensor payload's magic "PTVB1" becomes "XTVB1"
    const otherModel = Buffer.from(
      serializeVoice({
        id: 'clone-abc-def',
        name: 'French voice',
        bundleId: 'other-model/french_2026-01',
        createdAt: Date.now(),
        consent: { statement: 'This is my voice, or I have the speaker’s permission to clone it.', acceptedAt: Date.now() },
        synthetic: true,
        tensors: presetVoice({ name: 'x', amplitude: 0.3 }, 3),
      }),
    );
    const cases: [string, Buffer, string][] = [
      [
        'truncated.stvoice',
        exported.subarray(0, exported.length - 1000),
        'That voice file is damaged or incomplete (bad tensors',
      ],
      ['header.stvoice', badHeader, 'That voice file is damaged: its header can’t be read.'],
      ['payload.stvoice', badPayload, 'That voice file is damaged or incomplete (bad tensors: not a PTVB1 file)'],
      [
        'notes.stvoice',
        Buffer.from('These are my notes, not a voice.'),
        'Could not import “notes.stvoice”. That file isn’t a Sidetalk voice file.',
      ],
      ['french.stvoice', otherModel, 'That voice was made with another voice model (other-model/french_2026-01)'],
    ];
    for (const [name, buffer, message] of cases) {
      await importInput().setInputFiles({ name, mimeType: 'application/octet-stream', buffer });
      await poll(
        () =>
          voicesPanel()
            .getByTestId('voices-error')
            .innerText()
            .catch(() => ''),
        (t) => t.includes(message),
        60_000,
      );
      expect(await voicesPanel().getByTestId('voices-status').count()).toBe(0);
      expect(await voicesPanel().getByTestId('cloned-voice').count()).toBe(before.length);
    }
    expect(await clones()).toEqual(before);
  });

  it('logged no console errors', () => {
    expect(session.errors).toEqual([]);
  });
});
