import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadSettings, saveSettings } from '../../../entrypoints/background/settings-store';
import { FakeArea } from './fakes';

describe('saveSettings', () => {
  beforeEach(() => {
    vi.stubGlobal('chrome', { storage: { local: new FakeArea(), session: new FakeArea() } });
  });
  afterEach(() => vi.unstubAllGlobals());

  it('keeps every patch when saves overlap (each reads what the one before wrote)', async () => {
    await Promise.all([
      saveSettings({ memoryEnabled: false }),
      saveSettings({ handsFree: false }),
      saveSettings({ speechLanguage: 'de' }),
    ]);
    const settings = await loadSettings();
    expect(settings.memoryEnabled).toBe(false);
    expect(settings.speechLanguage).toBe('de');
  });

  it('a failed save does not block the next one', async () => {
    const local = (globalThis as unknown as { chrome: { storage: { local: FakeArea } } }).chrome.storage.local;
    const set = local.set.bind(local);
    local.set = () => Promise.reject(new Error('quota'));
    await expect(saveSettings({ memoryEnabled: false })).rejects.toThrow('quota');
    local.set = set;
    await saveSettings({ speechLanguage: 'de' });
    expect((await loadSettings()).speechLanguage).toBe('de');
  });
});
