// Where a bundle's files live: URL building and mirror validation. The same URL is the Cache Storage key, because
// transformers.js looks files up by `${remoteHost}${repo}/resolve/${revision}/${path}`.
import { WeightsError } from './errors';
import type { ModelBundle } from './types';

export const DEFAULT_HUB_URL = 'https://huggingface.co';

export function bundleTotalBytes(bundle: ModelBundle, includeOptional = true): number {
  return bundle.files.reduce((sum, f) => sum + (f.optional && !includeOptional ? 0 : f.size), 0);
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

function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** `${base}/${repo}/resolve/${revision}/${path}`; base defaults to the hub and is validated. */
export function buildFileUrl(bundle: Pick<ModelBundle, 'repo' | 'revision'>, path: string, base = DEFAULT_HUB_URL): string {
  const root = validateMirrorUrl(base);
  return `${root}/${bundle.repo}/resolve/${encodeURIComponent(bundle.revision)}/${encodePath(path)}`;
}
