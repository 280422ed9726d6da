/**
 * Drives the side panel's avatar from a test or bench: starts its frame probe, reads it back, and plays PCM the way
 * the offscreen document does (80 ms frames of 24 kHz Float32 on the audio BroadcastChannel, text on the first).
 */
import type { Page } from 'playwright-core';
import type { AvatarProbeHost, AvatarProbeSnapshot } from '../../components/avatar/avatar-probe';

type ProbeElement = HTMLElement & { sidetalkAvatar?: AvatarProbeHost };

/** Starts (or restarts, cleared) the avatar's frame probe. */
export async function startProbe(page: Page): Promise<void> {
  await page.evaluate(() => {
    const el = [...document.querySelectorAll('.sidetalk-avatar div')].find((d) => (d as ProbeElement).sidetalkAvatar) as
      ProbeElement | undefined;
    if (!el?.sidetalkAvatar) throw new Error('the avatar exposes no probe (WebGL avatar not loaded?)');
    el.sidetalkAvatar.probe().clear();
  });
}

export function probeSnapshot(page: Page): Promise<AvatarProbeSnapshot> {
  return page.evaluate(() => {
    const el = [...document.querySelectorAll('.sidetalk-avatar div')].find(
      (d) => (d as ProbeElement).sidetalkAvatar,
    ) as ProbeElement;
    return el.sidetalkAvatar!.probe().snapshot();
  });
}

/**
 * Sends `pcm` (24 kHz) as 80 ms chunks, `speedup`× faster than real time (TTS running ahead of playback), and
 * resolves when the last chunk is sent.
 */
export function playUtterance(page: Page, pcm: number[], text: string, turnId: string, speedup = 2): Promise<void> {
  return page.evaluate(
    async ({ pcm, text, turnId, speedup }) => {
      const channel = new BroadcastChannel('sidetalk-audio');
      const frame = 1920;
      for (let i = 0, seq = 0; i < pcm.length; i += frame, seq++) {
        const samples = Float32Array.from(pcm.slice(i, i + frame));
        channel.postMessage({
          kind: 'chunk',
          turnId,
          seq,
          sampleRate: 24000,
          samples,
          final: false,
          ...(i === 0 ? { text } : {}),
        });
        await new Promise((r) => setTimeout(r, 80 / speedup));
      }
      channel.close();
    },
    { pcm, text, turnId, speedup },
  );
}
