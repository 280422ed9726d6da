import type { MicCapture } from '../../models/audio/mic-capture';

export interface VadProbeResult {
  frames: number;
  /** Frames whose answer came before the probe's window closed (the rest were answered late, while it waited). */
  framesInWindow: number;
  speechFrames: number;
  firstSpeechMs: number | null;
  msPerFrame: number;
}

/** Runs the VAD on the live microphone for `durationMs`: how much of it was speech and what a frame cost. */
export async function probeVad(
  mic: MicCapture,
  vad: (pcm: Float32Array) => Promise<number>,
  durationMs: number,
): Promise<VadProbeResult> {
  const wasOn = mic.capturing;
  await mic.start();
  const started = performance.now();
  let frames = 0;
  let framesInWindow = 0;
  let windowOpen = true;
  let speechFrames = 0;
  let firstSpeechMs: number | null = null;
  let busyMs = 0;
  const pending: Promise<void>[] = [];
  const off = mic.onFrame((frame) => {
    const t0 = performance.now();
    pending.push(
      vad(frame.samples).then((prob) => {
        busyMs += performance.now() - t0;
        frames += 1;
        if (windowOpen) framesInWindow += 1;
        if (prob > 0.5) {
          speechFrames += 1;
          firstSpeechMs ??= t0 - started;
        }
      }),
    );
  });
  await new Promise((r) => setTimeout(r, durationMs));
  windowOpen = false;
  off();
  await Promise.all(pending);
  if (!wasOn) await mic.stop();
  return { frames, framesInWindow, speechFrames, firstSpeechMs, msPerFrame: frames ? busyMs / frames : 0 };
}
