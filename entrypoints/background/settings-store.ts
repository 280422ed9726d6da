import { settingsFromStored, type Settings, type SettingsPatch } from '../../core/protocol';

const KEY = 'settings';

/** Settings live in chrome.storage.local so they survive the service worker being stopped after 30 s idle. */
export async function loadSettings(): Promise<Settings> {
  const stored = await chrome.storage.local.get(KEY);
  return settingsFromStored(stored[KEY]);
}

export async function saveSettings(patch: SettingsPatch): Promise<Settings> {
  const next = { ...(await loadSettings()), ...patch };
  await chrome.storage.local.set({ [KEY]: next });
  return next;
}

/** On install/update: write back the merged settings so new fields get defaults and old valid choices stay. */
export async function migrateSettings(): Promise<Settings> {
  const merged = await loadSettings();
  await chrome.storage.local.set({ [KEY]: merged });
  return merged;
}
