/**
 * What the toolbar icon says while the microphone or the camera is live (docs/security.md, "Microphone and camera"):
 * a badge the user sees on every tab, from what the offscreen document reports it is really capturing. Empty text
 * clears the badge.
 */
import type { OffscreenStatus } from '../protocol/status';

export interface CaptureBadge {
  text: string;
  title: string;
}

export const CAPTURE_BADGE_COLOR = '#c62828';

/** Whether the document's report shows a live microphone (the capture graph, or any live audio track). */
export function micLive(status: OffscreenStatus | null): boolean {
  return !!status && (status.mic.capturing || (status.mic.live ?? 0) > 0);
}

export function cameraLive(status: OffscreenStatus | null): boolean {
  return !!status && (status.camera?.live ?? 0) > 0;
}

export function captureBadge(status: OffscreenStatus | null): CaptureBadge {
  const mic = micLive(status);
  const camera = cameraLive(status);
  if (mic && camera) return { text: 'ON', title: 'Sidetalk: the microphone and the camera are on' };
  if (mic) return { text: 'MIC', title: 'Sidetalk: the microphone is on' };
  if (camera) return { text: 'CAM', title: 'Sidetalk: the camera is on' };
  return { text: '', title: 'Sidetalk' };
}
