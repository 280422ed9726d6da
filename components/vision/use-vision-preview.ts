/**
 * Side-panel hook: listens on the preview BroadcastChannel, validates each message, turns each JPEG into an object
 * URL (revoking the previous one so memory stays flat) and drops the picture when vision goes off.
 */
import { useEffect, useState } from 'preact/hooks';
import { VISION_PREVIEW_CHANNEL, VisionPreviewMessageSchema, type VisionPreviewMessage } from '../../core/vision/preview-channel';
import type { CameraPipFrame, CameraPipState } from './CameraPip';

export interface VisionPreview {
  state: CameraPipState;
  frame: CameraPipFrame | null;
  message?: string;
}

/** The state reducer, separate from the hook so it is testable without a DOM. */
export function reducePreview(
  current: VisionPreview,
  message: VisionPreviewMessage,
  urls: { create(blob: Blob): string; revoke(url: string): void },
): VisionPreview {
  if (message.kind === 'frame') {
    if (current.frame) urls.revoke(current.frame.url);
    const frame = { url: urls.create(message.jpeg), width: message.width, height: message.height, objects: message.objects };
    return { state: current.state === 'paused' ? 'paused' : 'on', frame };
  }
  if (message.state === 'off' || message.state === 'error' || message.state === 'starting') {
    if (current.frame) urls.revoke(current.frame.url);
    return { state: message.state, frame: null, ...(message.message ? { message: message.message } : {}) };
  }
  return { ...current, state: message.state };
}

export function useVisionPreview(channelName = VISION_PREVIEW_CHANNEL): VisionPreview {
  const [preview, setPreview] = useState<VisionPreview>({ state: 'off', frame: null });
  useEffect(() => {
    const channel = new BroadcastChannel(channelName);
    const urls = { create: (blob: Blob) => URL.createObjectURL(blob), revoke: (url: string) => URL.revokeObjectURL(url) };
    let latest: VisionPreview = { state: 'off', frame: null };
    channel.onmessage = (event: MessageEvent) => {
      const parsed = VisionPreviewMessageSchema.safeParse(event.data);
      if (!parsed.success) return;
      latest = reducePreview(latest, parsed.data, urls);
      setPreview(latest);
    };
    return () => {
      channel.close();
      if (latest.frame) urls.revoke(latest.frame.url);
    };
  }, [channelName]);
  return preview;
}
