import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Reply } from '../../core/protocol';
import { MODEL_BUNDLES, TTS_GPU_BUNDLE } from '../../models/registry';
import { makeSilenceWav, makeSpeechWav } from '../fixtures/audio/make-wav';
import { startFixtureHub, type FixtureHub } from './fixture-hub';
import {
  downloadModels,
  engineMarks,
  launchExtension,
  poll,
  request,
  sendFromPage,
  waitForOffscreen,
  type ExtensionSession,
} from './harness';

type VadProbe = {
  frames: number;
  framesInWindow: number;
  speechFrames: number;
  firstSpeechMs: number | null;
  msPerFrame: number;
};

let fixtures: FixtureHub | undefined;
const sessions: ExtensionSession[] = [];
afterAll(async () => {
  for (const s of sessions) await s.close();
  await fixtures?.close();
});

async function open(micWav: string): Promise<{ session: ExtensionSession; panel: Page }> {
  fixtures ??= await startFixtureHub();
  // One browser at a time: an earlier test's browser keeps feeding its fake microphone through VAD on the same 2 cores.
  for (const s of sessions.splice(0)) await s.close();
  const session = await launchExtension({ extensionDir: fixtures.extensionDir, micWav });
  sessions.push(session);
  const panel = await session.openPage('sidepanel.html');
  // Opening the panel creates the engine's document; requests to it need it to exist.
  await waitForOffscreen(session, panel);
  await sendFromPage(panel, request('settings/set', 'background', { patch: { mirrorBaseUrl: fixtures.hub.url } }));
  return { session, panel };
}

describe('speech runtimes in the built extension', () => {
  it('Silero VAD (in script, on the offscreen thread) finds speech in the speech WAV', async () => {
    const { panel } = await open(makeSpeechWav('vad-speech', 'Hello there. This is a test of voice activity detection.', 1, 3));
    const r = await sendFromPage<Reply<VadProbe>>(panel, request('vad/probe', 'offscreen', { durationMs: 6000 }));
    if (!r.ok) throw new Error(r.error.message);
    // ~3 s of espeak speech in a 6 s window: dozens of 32 ms frames above 0.5
    expect(r.data.frames).toBeGreaterThan(100);
    expect(r.data.speechFrames).toBeGreaterThan(20);
    expect(r.data.firstSpeechMs).not.toBeNull();
  });

  it('keeps answering microphone frames while the model worker is held by a long job', async () => {
    const { panel } = await open(makeSpeechWav('vad-held', 'Hello there. This is a test of voice activity detection.', 0.2, 0.3));
    await sendFromPage(panel, request('settings/set', 'background', { patch: { debugPanel: true } }));
    // The worker's thread is then busy for 5 s, as under a long WASM transcription on the CPU; the probe's 3 s window
    // lies inside it. A VAD that needed that thread would answer none of its frames before the window closed.
    const held = await sendFromPage<Reply<unknown>>(panel, request('debug/fault', 'offscreen', { fault: 'hold-model-worker' }));
    if (!held.ok) throw new Error(held.error.message);
    const r = await sendFromPage<Reply<VadProbe>>(panel, request('vad/probe', 'offscreen', { durationMs: 3000 }));
    if (!r.ok) throw new Error(r.error.message);
    console.log('VAD while the worker is held', JSON.stringify(r.data));
    // ~94 frames of 32 ms in 3 s; the speech fills most of the window.
    expect(r.data.framesInWindow).toBeGreaterThan(60);
    expect(r.data.framesInWindow).toBe(r.data.frames);
    expect(r.data.speechFrames).toBeGreaterThan(10);
  });

  it('finds no speech in a silent WAV', async () => {
    const { panel } = await open(makeSilenceWav('vad-silence', 8));
    const r = await sendFromPage<Reply<VadProbe>>(panel, request('vad/probe', 'offscreen', { durationMs: 4000 }));
    if (!r.ok) throw new Error(r.error.message);
    expect(r.data.frames).toBeGreaterThan(60);
    expect(r.data.speechFrames).toBe(0);
  });

  it('runs Whisper ASR and the LLM on the WASM backend when the user picks CPU only', async () => {
    const { session, panel } = await open(makeSpeechWav('wasm-turn', 'Please tell me a joke.', 1.5, 20));
    await downloadModels(
      panel,
      fixtures!.hub.url,
      MODEL_BUNDLES.filter((b) => b.id !== TTS_GPU_BUNDLE.id).map((b) => b.id),
    ); // the GPU voice has its own e2e (tts-gpu)
    await sendFromPage(
      panel,
      request('settings/set', 'background', { patch: { computeBackend: 'wasm', asrModel: 'whisper-base' } }),
    );
    // "Models ready (CPU)" is the status line's detail only until the engine's next state: keep every message the
    // panel hears, so a poll that comes a moment late still sees it.
    await panel.evaluate(() => {
      const g = globalThis as unknown as { __heard: string[] };
      g.__heard = [];
      chrome.runtime.onMessage.addListener((m: unknown) => void g.__heard.push(JSON.stringify(m)));
    });
    await panel.getByTestId('orb').click();
    await poll(
      () => panel.evaluate(() => (globalThis as unknown as { __heard: string[] }).__heard),
      (heard) => heard.some((m) => m.includes('Models ready (CPU)')),
      60_000,
    );
    const all = await poll(
      () => engineMarks(panel),
      (m) => m.some((x) => x.name === 'done'),
      90_000,
      250,
    );
    const names = all.map((m) => m.name);
    for (const name of ['speech-start', 'transcript', 'llm-start', 'first-speak', 'done']) expect(names).toContain(name);
    await panel.getByTestId('orb').click();
    expect(session.errors).toEqual([]);
  }, 240_000); // every bundle downloads, then Whisper and the LLM load and run on WASM on 2 shared cores
});
