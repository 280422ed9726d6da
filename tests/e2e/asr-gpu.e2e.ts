/**
 * Speech recognition on WebGPU in the built extension (SwiftShader here): the fixture Moonshine transcribes a tone and
 * silence in the model worker, through `debug/asr-probe` (test builds, debug panel on), exactly as its reference rule
 * says. The e2e spoken turns keep the speech models on the CPU; this is the WebGPU path's check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Reply } from '../../core/protocol';
import { ASR_BUNDLES, LLM_BUNDLE, TTS_BUNDLE, TURN_BUNDLE } from '../../models/registry';
import { makeSilenceWav } from '../fixtures/audio/make-wav';
import { MOONSHINE } from '../fixtures/models/generate';
import { asrReferenceTokens } from '../fixtures/models/reference';
import { startFixtureHub, type FixtureHub } from './fixture-hub';
import { downloadModels, launchExtension, poll, request, sendFromPage, type ExtensionSession } from './harness';

let session: ExtensionSession;
let fixtures: FixtureHub;
let panel: Page;

type Probe = {
  backend: 'webgpu' | 'wasm';
  text: string | null;
  error: string | null;
  ms: number;
  turn?: { probability: number | null; error: string | null };
};
const SECONDS = 1.5;
const LETTERS = ' abcdefghijklmnopqrstuvwxyz';
/** The fixture Moonshine's transcript of the probe's clip: its rule reads the clip's mean |sample| (reference.ts). */
function reference(toneHz: number | null): string {
  let sum = 0;
  const n = Math.round(SECONDS * 16_000);
  for (let i = 0; i < n && toneHz !== null; i++)
    sum += Math.abs(Math.fround(0.3 * Math.sin((2 * Math.PI * toneHz * i) / 16_000)));
  const ids = asrReferenceTokens(MOONSHINE, [MOONSHINE.bos], sum / n);
  return ids
    .slice(0, -1)
    .map((id) => LETTERS[id - MOONSHINE.textLo])
    .join('')
    .trim();
}
const probe = (toneHz: number | null, withTurnCheck = false) =>
  sendFromPage<Reply<Probe>>(panel, request('debug/asr-probe', 'offscreen', { seconds: SECONDS, toneHz, withTurnCheck }));

beforeAll(async () => {
  fixtures = await startFixtureHub();
  session = await launchExtension({ extensionDir: fixtures.extensionDir, micWav: makeSilenceWav('asr-gpu-silence', 30) });
  panel = await session.openPage('sidepanel.html');
  await panel.setViewportSize({ width: 420, height: 860 });
  await downloadModels(panel, fixtures.hub.url, [LLM_BUNDLE.id, ASR_BUNDLES.moonshine.id, TURN_BUNDLE.id, TTS_BUNDLE.id]);
  await sendFromPage(panel, request('settings/set', 'background', { patch: { debugPanel: true } }));
});

afterAll(async () => {
  await session?.close();
  await fixtures?.close();
});

describe('speech recognition on WebGPU', () => {
  it('transcribes a tone and silence on WebGPU exactly as the fixture decoder reference says', async () => {
    await panel.getByTestId('orb').click(); // hands-free: the conversation loads its models
    const tone = await poll(
      () => probe(440),
      (r) => r.ok && r.data.error !== 'speech recognition is not loaded',
      90_000,
      1000,
    );
    const silence = await probe(null);
    console.log(`[asr] webgpu: ${JSON.stringify(tone)} ${JSON.stringify(silence)}`);
    expect(tone).toMatchObject({ ok: true, data: { backend: 'webgpu', error: null, text: reference(440) } });
    expect(silence).toMatchObject({ ok: true, data: { backend: 'webgpu', error: null, text: reference(null) } });
    expect(reference(440)).not.toBe(reference(null));
    await panel.getByTestId('orb').click();
  });

  it('a pause: the end-of-turn question and the transcription started together both answer, the transcript unchanged', async () => {
    // Both models run on this worker's one WebGPU instance; two runs at once there corrupted the runtime's memory
    // ("memory access out of bounds") until every run went through one lane (models/workers/run-lane.ts).
    await panel.getByTestId('orb').click();
    await poll(
      () => probe(440),
      (r) => r.ok && r.data.error !== 'speech recognition is not loaded',
      90_000,
      1000,
    );
    const results: Reply<Probe>[] = [];
    for (let i = 0; i < 6; i++) results.push(await probe(i % 2 ? null : 440, true));
    console.log(`[asr] with the end-of-turn question: ${JSON.stringify(results)}`);
    results.forEach((r, i) => {
      expect(r).toMatchObject({ ok: true, data: { backend: 'webgpu', error: null, text: reference(i % 2 ? null : 440) } });
      const turn = r.ok ? r.data.turn : undefined;
      expect(turn?.error).toBeNull();
      expect(turn?.probability).toBeGreaterThanOrEqual(0);
      expect(turn?.probability).toBeLessThanOrEqual(1);
    });
    await panel.getByTestId('orb').click();
  });

  it('the language model probe times the pieces of an answer streamed from WebGPU (what the GPU bench reads)', async () => {
    await panel.getByTestId('orb').click();
    type LlmProbe = { backend: string; error: string | null; firstPieceMs: number | null; pieceAtMs: number[]; totalMs: number };
    const llm = await poll(
      () => sendFromPage<Reply<LlmProbe>>(panel, request('debug/llm-probe', 'offscreen', { question: 'What is a tide?' })),
      (r) => r.ok && !/not loaded/.test(r.data.error ?? ''),
      90_000,
      1000,
    );
    console.log(`[llm] webgpu: ${JSON.stringify(llm)}`);
    expect(llm).toMatchObject({ ok: true, data: { backend: 'webgpu', error: null } });
    const at = llm.ok ? llm.data.pieceAtMs : [];
    expect(at.length).toBeGreaterThan(1);
    expect(llm.ok && llm.data.firstPieceMs).toBe(at[0]);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(llm.ok && llm.data.totalMs).toBeGreaterThanOrEqual(at[at.length - 1]!);
    await panel.getByTestId('orb').click();
  });
});
