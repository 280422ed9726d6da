/**
 * The room sweep's echo recordings (docs/echo-canceller.md, "On real browser audio"): after each reply, the microphone
 * as the engine got it beside what the speakers played over the same samples (`debug/echo-recording`), with frame
 * times on the wall clock. Written next to the sweep's JSON as `<out>-echo.json.gz` for bench/echo/room-offline.ts.
 */
import type { Page } from 'playwright-core';
import { request, sendFromPage } from '../../tests/e2e/harness';

export interface EchoRecordingTake {
  /** Wall-clock time (ms) of the first sample; frames are 512 samples at 16 kHz, back to back as captured. */
  firstWallAt: number;
  frameWallAt: number[];
  /** Float32, base64, 16 kHz. */
  mic: string;
  reference: string;
}

/** The last `seconds` (at most 30) of the microphone and the reference. */
export async function takeEchoRecording(panel: Page, seconds: number): Promise<EchoRecordingTake> {
  const r = await sendFromPage<{
    ok: boolean;
    data?: { firstAt: number; frameAt: number[]; mic: string; reference: string; clockToWallMs: number };
  }>(panel, request('debug/echo-recording', 'offscreen', { seconds: Math.min(30, Math.max(0.1, seconds)) }));
  if (!r?.ok || !r.data) throw new Error(`debug/echo-recording: ${JSON.stringify(r).slice(0, 200)}`);
  const { firstAt, frameAt, mic, reference, clockToWallMs } = r.data;
  return {
    firstWallAt: Math.round(firstAt + clockToWallMs),
    frameWallAt: frameAt.map((t) => Math.round(t + clockToWallMs)),
    mic,
    reference,
  };
}
