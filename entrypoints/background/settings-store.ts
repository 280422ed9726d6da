import { migratedSettings, settingsFromStored, type Settings, type SettingsPatch } from '../../core/protocol';
import { MEDIA_SESSION_KEY, mediaFromSession, splitForStorage, withSessionMedia } from '../../core/lifecycle/media-session';

const KEY = 'settings';

/**
 * Settings live in chrome.storage.local so they survive the service worker being stopped after 30 s idle; hands-free
 * and vision in chrome.storage.session, so they end with the browser session (core/lifecycle/media-session.ts).
 */
export async function loadSettings(): Promise<Settings> {
  const stored = await chrome.storage.local.get(KEY);
  const media = mediaFromSession((await chrome.storage.session.get(MEDIA_SESSION_KEY))[MEDIA_SESSION_KEY]);
  return withSessionMedia(settingsFromStored(stored[KEY]), media);
}

// Each save reads, merges and writes: two at once would each write what it read, and one patch would be lost (the
// memory switch and hands-free turned off by the background at the same moment). So saves run one after another.
let saves: Promise<unknown> = Promise.resolve();

export function saveSettings(patch: SettingsPatch): Promise<Settings> {
  const save = saves.then(async () => {
    const next = { ...(await loadSettings()), ...patch };
    const { persistent, session } = splitForStorage(next);
    await chrome.storage.local.set({ [KEY]: persistent });
    await chrome.storage.session.set({ [MEDIA_SESSION_KEY]: session });
    return next;
  });
  saves = save.catch(() => undefined);
  return save;
}

/** On install/update: write back the merged settings so new fields get defaults and old valid choices stay. */
export async function migrateSettings(): Promise<Settings> {
  // Hands-free or vision stored on by an older version must not come back on (media-session.ts).
  const { persistent } = splitForStorage(migratedSettings((await chrome.storage.local.get(KEY))[KEY]));
  await chrome.storage.local.set({ [KEY]: persistent });
  return persistent;
}
