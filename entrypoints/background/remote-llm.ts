import { parseRemoteLlmSettings, type RemoteLlmConfig } from '../../core/remote-llm';
import { RemoteLlmConfigSchema, type Handlers } from '../../core/protocol';
import type { LocalStorageArea } from './characters';

export const REMOTE_LLM_KEY = 'remoteLlm';

/**
 * The bring-your-own model server config lives in chrome.storage.local only: never in a page-visible store, never
 * logged, never in an error message (the key is only ever sent as `Authorization: Bearer …` by core/remote-llm).
 */
export async function loadRemoteLlmConfig(area: LocalStorageArea): Promise<RemoteLlmConfig | null> {
  const parsed = RemoteLlmConfigSchema.safeParse((await area.get(REMOTE_LLM_KEY))[REMOTE_LLM_KEY]);
  if (!parsed.success) return null;
  // Re-validate with the same rules as the form, so a damaged or hand-edited entry can't smuggle in a bad URL.
  const checked = parseRemoteLlmSettings(parsed.data);
  return checked.ok ? checked.config : null;
}

export function createRemoteLlmHandlers(
  area: LocalStorageArea,
): Pick<Handlers<'background'>, 'remote-llm/get' | 'remote-llm/set'> {
  return {
    'remote-llm/get': async () => ({ config: await loadRemoteLlmConfig(area) }),
    'remote-llm/set': async ({ settings }) => {
      if (settings === null) {
        await area.set({ [REMOTE_LLM_KEY]: null });
        return { config: null };
      }
      const parsed = parseRemoteLlmSettings({ ...settings, apiKey: settings.apiKey?.trim() || undefined });
      // The field's own sentence (never the URL or key the user typed).
      if (!parsed.ok) throw new Error(parsed.error);
      await area.set({ [REMOTE_LLM_KEY]: parsed.config });
      return { config: parsed.config };
    },
  };
}
