import {
  originPermissionPattern,
  originsToGiveBack,
  parseRemoteLlmSettings,
  storedServerPattern,
  type RemoteLlmConfig,
} from '../../core/remote-llm';
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

/** Gives back an optional host permission (chrome.permissions.remove needs no user gesture). */
export type RevokeOrigin = (originPattern: string) => Promise<unknown>;

const chromeRevoke: RevokeOrigin = (pattern) => chrome.permissions.remove({ origins: [pattern] });

/** The host permissions held now (manifest ones included). */
export type HeldOrigins = () => Promise<string[]>;

const chromeHeld: HeldOrigins = async () => (await chrome.permissions.getAll()).origins ?? [];
const manifestHosts = (): string[] => chrome.runtime.getManifest().host_permissions ?? [];

/**
 * Gives back every optional host permission the saved server does not use: a "Test connection" grant whose server
 * was never saved, or one an older server left. Runs when the service worker starts and after every change.
 */
export async function giveBackUnusedOrigins(
  area: LocalStorageArea,
  held: HeldOrigins = chromeHeld,
  revoke: RevokeOrigin = chromeRevoke,
  required: readonly string[] = manifestHosts(),
): Promise<string[]> {
  const config = await loadRemoteLlmConfig(area);
  const back = originsToGiveBack(await held(), required, config ? originPermissionPattern(config.baseUrl) : null);
  for (const origin of back) await revoke(origin);
  return back;
}

/**
 * The host permission for a server is asked for when the user saves it (components/settings/ModelServerPanel.tsx)
 * and given back here when the server is removed or replaced by one on another origin, so Sidetalk holds access to
 * no host it no longer uses (docs/security.md, "Host permissions").
 */
export function createRemoteLlmHandlers(
  area: LocalStorageArea,
  revoke: RevokeOrigin = chromeRevoke,
  held: HeldOrigins = chromeHeld,
  required: () => readonly string[] = manifestHosts,
): Pick<Handlers<'background'>, 'remote-llm/get' | 'remote-llm/set'> {
  /** The origin of the stored server, even one today's rules or schema refuse (an http:// LAN server, an old shape). */
  async function storedOrigin(): Promise<string | null> {
    return storedServerPattern((await area.get(REMOTE_LLM_KEY))[REMOTE_LLM_KEY]);
  }
  /** After a change: the old origin, and any unsaved "Test connection" grant, go back. */
  async function tidy(): Promise<void> {
    try {
      await giveBackUnusedOrigins(area, held, revoke, required());
    } catch {
      // Best effort: the next service-worker start tries again.
    }
  }
  async function release(before: string | null, next: RemoteLlmConfig | null): Promise<void> {
    if (before && before !== (next ? originPermissionPattern(next.baseUrl) : null)) await revoke(before);
  }
  return {
    'remote-llm/get': async () => {
      const config = await loadRemoteLlmConfig(area);
      // An entry that can no longer be used is named, so the settings can offer to remove it.
      const stale = config ? null : await storedOrigin();
      return { config, ...(stale ? { unusable: stale } : {}) };
    },
    'remote-llm/set': async ({ settings }) => {
      const previous = await storedOrigin();
      if (settings === null) {
        await area.set({ [REMOTE_LLM_KEY]: null });
        await release(previous, null);
        await tidy();
        return { config: null };
      }
      const parsed = parseRemoteLlmSettings({ ...settings, apiKey: settings.apiKey?.trim() || undefined });
      // The field's own sentence (never the URL or key the user typed).
      if (!parsed.ok) throw new Error(parsed.error);
      await area.set({ [REMOTE_LLM_KEY]: parsed.config });
      await release(previous, parsed.config);
      await tidy();
      return { config: parsed.config };
    },
  };
}
