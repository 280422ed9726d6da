// Where a bundle's files live: the one place that turns a hub (or mirror) base and a pinned file into URLs. The file
// URL is also the Cache Storage key, because transformers.js looks files up by
// `${remoteHost}${repo}/resolve/${revision}/${path}` (docs/weights.md).
import { WeightsError } from './errors';
import type { BundleFile, HubRepo, ModelBundle } from './types';

export const DEFAULT_HUB_URL = 'https://huggingface.co';

export function bundleTotalBytes(bundle: ModelBundle, includeOptional = true): number {
  return bundle.files.reduce((sum, f) => sum + (f.optional && !includeOptional ? 0 : f.size), 0);
}

/**
 * Bytes of the bundles with `default: true`: what a new user downloads before the first spoken turn. Optional files
 * count too: they are fetched whenever the server has them.
 */
export function defaultDownloadBytes(bundles: readonly ModelBundle[]): number {
  return bundles.filter((b) => b.default).reduce((s, b) => s + bundleTotalBytes(b), 0);
}

/** Validates a user-supplied mirror and returns it normalised without a trailing slash; throws WeightsError. */
export function validateMirrorUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new WeightsError('bad_mirror', 'not a URL');
  }
  const localHost = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && localHost)) {
    throw new WeightsError('bad_mirror', `scheme ${url.protocol} not allowed for this host`);
  }
  // Credentials in a URL would end up in cache keys and logs.
  if (url.username || url.password) throw new WeightsError('bad_mirror', 'credentials in URL');
  if (url.search || url.hash) throw new WeightsError('bad_mirror', 'query or fragment in URL');
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/**
 * The one place the mirror setting becomes a base URL: the validated mirror, or null for the hub itself. Every
 * context (background relays, offscreen voice service) calls this; none trims or validates on its own.
 */
export function configuredMirror(mirrorSetting: string | undefined | null): string | null {
  const trimmed = mirrorSetting?.trim() ?? '';
  return trimmed ? validateMirrorUrl(trimmed) : null;
}

function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** `{id}` for models, `spaces/{id}` for Spaces: the repo's prefix in resolve URLs. */
function repoPrefix(repo: HubRepo): string {
  return repo.type === 'space' ? `spaces/${repo.id}` : repo.id;
}

/** `${base}/[spaces/]${id}/resolve/${revision}/${path}`; base defaults to the hub and is validated. */
export function buildFileUrl(file: Pick<BundleFile, 'repo' | 'path'>, base = DEFAULT_HUB_URL): string {
  const root = validateMirrorUrl(base);
  return `${root}/${repoPrefix(file.repo)}/resolve/${encodeURIComponent(file.repo.revision)}/${encodePath(file.path)}`;
}

/** The hub's listing of one folder of a repo at its pinned revision (`/api/models|spaces/{id}/tree/{rev}/{folder}`). */
export function treeApiUrl(repo: HubRepo, folder = '', base = DEFAULT_HUB_URL): string {
  const kind = repo.type === 'space' ? 'spaces' : 'models';
  const sub = folder ? `/${encodePath(folder)}` : '';
  return `${validateMirrorUrl(base)}/api/${kind}/${repo.id}/tree/${encodeURIComponent(repo.revision)}${sub}`;
}
