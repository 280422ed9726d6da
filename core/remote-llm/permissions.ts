// Which optional host permissions Sidetalk should hold: only the origin of the model server the user saved
// (docs/security.md, "Host permissions"). "Test connection" asks Chrome for a server's origin before it is saved; a
// grant whose server was never saved, or one left by an older server, is given back.
import { originPermissionPattern } from './config';

/**
 * The origin pattern of the stored server entry, whatever today's rules or schema say of it (an old http:// LAN
 * server, an entry of an older shape): it can always be removed and its permission given back. Null when none.
 */
export function storedServerPattern(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const baseUrl = (raw as { baseUrl?: unknown }).baseUrl;
  if (typeof baseUrl !== 'string') return null;
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return originPermissionPattern(baseUrl);
  } catch {
    return null;
  }
}

/**
 * Host permissions held beyond what the manifest requires and the saved server uses: a "Test connection" grant for
 * a server that was not saved, or the origin of a server the user stopped using.
 */
export function originsToGiveBack(held: readonly string[], required: readonly string[], inUse: string | null): string[] {
  return held.filter((origin) => !required.includes(origin) && origin !== inUse);
}
