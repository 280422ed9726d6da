import { CAPTURE_BADGE_COLOR, captureBadge } from '../../core/ux/capture-badge';
import type { OffscreenStatus } from '../../core/protocol';

let shown: string | null = null;

/** The toolbar icon says when the microphone or the camera is live (core/ux/capture-badge.ts); set on every report. */
export function showCaptureBadge(status: OffscreenStatus | null): void {
  const badge = captureBadge(status);
  const key = `${badge.text}|${badge.title}`;
  if (key === shown) return;
  shown = key;
  void chrome.action.setBadgeText({ text: badge.text }).catch(() => undefined);
  void chrome.action.setTitle({ title: badge.title }).catch(() => undefined);
  if (badge.text) void chrome.action.setBadgeBackgroundColor({ color: CAPTURE_BADGE_COLOR }).catch(() => undefined);
}
