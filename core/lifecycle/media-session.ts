/**
 * Hands-free listening and webcam vision hold for one browser session only (docs/security.md, "Microphone and
 * camera"). The background keeps them in `chrome.storage.session`, which Chrome empties when the browser closes and
 * when the extension reloads or updates, so a new session starts with the microphone and the camera off until the
 * user turns them on again in the open side panel or the popup. The settings in `chrome.storage.local` always say off.
 */
import type { Settings } from '../protocol/settings';

export const MEDIA_SESSION_KEY = 'media';

export type MediaSwitches = Pick<Settings, 'handsFree' | 'visionEnabled'>;

const OFF: MediaSwitches = { handsFree: false, visionEnabled: false };

/** What session storage holds; anything else (a new session, a damaged entry) is off. */
export function mediaFromSession(stored: unknown): MediaSwitches {
  if (stored === null || typeof stored !== 'object') return { ...OFF };
  const s = stored as Record<string, unknown>;
  return { handsFree: s.handsFree === true, visionEnabled: s.visionEnabled === true };
}

/** The settings the contexts see: the persistent ones with this session's switches. */
export function withSessionMedia(settings: Settings, media: MediaSwitches): Settings {
  return { ...settings, ...media };
}

/** Splits settings into what outlives the session (switches off) and this session's switches. */
export function splitForStorage(settings: Settings): { persistent: Settings; session: MediaSwitches } {
  return {
    persistent: { ...settings, ...OFF },
    session: { handsFree: settings.handsFree, visionEnabled: settings.visionEnabled },
  };
}
