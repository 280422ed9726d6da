// Exact sizes and hashes for a bundle before its download. The catalog's sizes are estimates (for the UI before
// anything is fetched); the downloader needs the exact byte count and, for LFS files, the sha256. The hub's tree API
// lists both for a revision. A mirror that has no API is probed per file with `Range: bytes=0-0` (size from
// Content-Range), which is what transformers.js itself does; then only sizes are known.
import { z } from 'zod';
import { WeightsError } from './errors';
import { buildFileUrl, validateMirrorUrl, DEFAULT_HUB_URL } from './registry';
import type { BundleFile, ModelBundle } from './types';

const TreeEntrySchema = z.object({
  type: z.string(),
  path: z.string(),
  size: z.number().int().nonnegative(),
  lfs: z.object({ oid: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().nonnegative() }).optional(),
});
const TreeSchema = z.array(TreeEntrySchema);

export interface ResolveOptions {
  fetch: typeof fetch;
  baseUrl?: string;
  signal?: AbortSignal;
}

export function treeApiUrl(bundle: Pick<ModelBundle, 'repo' | 'revision'>, base = DEFAULT_HUB_URL): string {
  return `${validateMirrorUrl(base)}/api/models/${bundle.repo}/tree/${encodeURIComponent(bundle.revision)}?recursive=true`;
}

async function fromTreeApi(bundle: ModelBundle, opts: ResolveOptions): Promise<Map<string, z.infer<typeof TreeEntrySchema>> | null> {
  try {
    const res = await opts.fetch(treeApiUrl(bundle, opts.baseUrl), { signal: opts.signal });
    if (!res.ok) return null;
    const parsed = TreeSchema.safeParse(await res.json());
    if (!parsed.success) return null;
    return new Map(parsed.data.filter((e) => e.type === 'file').map((e) => [e.path, e]));
  } catch (err) {
    if (opts.signal?.aborted) throw new WeightsError('aborted', 'resolve aborted');
    return null;
  }
}

/** Size of one file from a one-byte Range probe; null when the server says it does not exist. */
async function probeSize(bundle: ModelBundle, file: BundleFile, opts: ResolveOptions): Promise<number | null> {
  const url = buildFileUrl(bundle, file.path, opts.baseUrl);
  let res: Response;
  try {
    res = await opts.fetch(url, { headers: { Range: 'bytes=0-0' }, signal: opts.signal });
  } catch {
    if (opts.signal?.aborted) throw new WeightsError('aborted', 'resolve aborted', file.path);
    throw new WeightsError('network', 'size probe failed', file.path);
  }
  await res.body?.cancel().catch(() => undefined);
  if (res.status === 404 || res.status === 416) return null;
  const range = /\/(\d+)$/.exec(res.headers.get('Content-Range') ?? '');
  if (res.status === 206 && range) return Number(range[1]);
  const length = res.headers.get('Content-Length');
  if (res.status === 200 && length !== null) return Number(length);
  throw new WeightsError('network', `size probe answered ${res.status}`, file.path);
}

/**
 * Returns the bundle with exact sizes (and sha256 where the hub lists one). A required file the server does not
 * have is a not_found error; a missing optional file keeps its entry (the downloader treats its 404 as fine).
 */
export async function resolveBundle(bundle: ModelBundle, opts: ResolveOptions): Promise<ModelBundle> {
  const tree = await fromTreeApi(bundle, opts);
  const files: BundleFile[] = [];
  for (const file of bundle.files) {
    const listed = tree?.get(file.path);
    if (listed) {
      const sha256 = file.sha256 ?? listed.lfs?.oid;
      files.push({ ...file, size: listed.lfs?.size ?? listed.size, ...(sha256 ? { sha256 } : {}) });
      continue;
    }
    const size = tree ? null : await probeSize(bundle, file, opts);
    if (size === null) {
      if (file.optional) {
        files.push(file);
        continue;
      }
      throw new WeightsError('not_found', `${file.path} is not in ${bundle.repo}@${bundle.revision}`, file.path);
    }
    files.push({ ...file, size });
  }
  return { ...bundle, files };
}
