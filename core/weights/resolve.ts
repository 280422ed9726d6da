// A check before a download: the hub's tree API, asked per repo folder at the pinned commit, must list every file
// with the manifest's size and LFS sha256. A file that moved or changed is reported at once with a clear error,
// before gigabytes are fetched. Sizes and hashes always come from the manifest; the listing is only compared with
// it. A mirror without the API (or an unparseable answer) skips the check: the downloader verifies the bytes anyway.
import { z } from 'zod';
import { WeightsError } from './errors';
import { DEFAULT_HUB_URL, treeApiUrl } from './registry';
import { weightsTunables } from '../tunables';
import type { BundleFile, ModelBundle } from './types';

const TreeEntrySchema = z.object({
  type: z.string(),
  path: z.string(),
  size: z.number().int().nonnegative(),
  lfs: z.object({ oid: z.string(), size: z.number().int().nonnegative() }).optional(),
});
type TreeEntry = z.infer<typeof TreeEntrySchema>;

/** The hub pages long listings with `Link: <…>; rel="next"`; a bound keeps a broken server from looping us. */
const MAX_PAGES = 20;

export interface PreflightOptions {
  fetch: typeof fetch;
  baseUrl?: string;
  signal?: AbortSignal;
}

function folderOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

function nextLink(header: string | null): string | null {
  const m = /<([^>]+)>;\s*rel="next"/.exec(header ?? '');
  return m?.[1] ?? null;
}

/**
 * The folder's files; an empty map when the hub says the folder does not exist at that commit (404 with the hub's
 * `X-Error-Code: EntryNotFound`); null when there is no usable API answer (a mirror without the tree API).
 * A hub that does not have the pinned commit at all (`RevisionNotFound`) is an error: nothing pinned can be served.
 */
async function listFolder(url: string, opts: PreflightOptions, where: string): Promise<Map<string, TreeEntry> | null> {
  const out = new Map<string, TreeEntry>();
  let next: string | null = url;
  for (let page = 0; next && page < MAX_PAGES; page++) {
    let res: Response;
    // A hanging listing must not hold the download: past the timeout the check is skipped like on a mirror without API.
    const timeout = AbortSignal.timeout(weightsTunables.preflightTimeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    try {
      res = await opts.fetch(next, { signal, cache: 'no-store' });
    } catch {
      if (opts.signal?.aborted) throw new WeightsError('aborted', 'preflight aborted');
      return null;
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      const code = res.status === 404 ? res.headers.get('x-error-code') : null;
      if (code === 'EntryNotFound') return out;
      if (code === 'RevisionNotFound') throw new WeightsError('not_found', `the pinned commit of ${where} is not on this server`);
      return null;
    }
    const parsed = z.array(TreeEntrySchema).safeParse(await res.json().catch(() => null));
    if (opts.signal?.aborted) throw new WeightsError('aborted', 'preflight aborted');
    if (!parsed.success) return null;
    for (const e of parsed.data) if (e.type === 'file') out.set(e.path, e);
    const link = nextLink(res.headers.get('link'));
    next = link ? new URL(link, next).href : null;
  }
  return out;
}

function compare(file: BundleFile, listed: TreeEntry | undefined, where: string): void {
  if (!listed) {
    if (file.optional) return;
    throw new WeightsError('not_found', `${file.path} is not in ${where}`, file.path);
  }
  const size = listed.lfs?.size ?? listed.size;
  if (size !== file.size) {
    throw new WeightsError(
      'integrity',
      `${where} lists ${file.path} with ${size} bytes; the manifest pins ${file.size}`,
      file.path,
    );
  }
  if (file.sha256 && listed.lfs && listed.lfs.oid !== file.sha256) {
    throw new WeightsError(
      'integrity',
      `${where} lists ${file.path} with sha256 ${listed.lfs.oid}; the manifest pins ${file.sha256}`,
      file.path,
    );
  }
}

/** Throws a WeightsError when the hub's listing at the pinned commits disagrees with the bundle's files. */
export async function preflightBundle(bundle: ModelBundle, opts: PreflightOptions): Promise<void> {
  const groups = new Map<string, BundleFile[]>();
  for (const f of bundle.files) {
    const key = `${f.repo.type}\u0000${f.repo.id}\u0000${f.repo.revision}\u0000${folderOf(f.path)}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  for (const files of groups.values()) {
    const first = files[0]!;
    const where = `${first.repo.type === 'space' ? 'Space ' : ''}${first.repo.id}@${first.repo.revision.slice(0, 7)}`;
    const listing = await listFolder(treeApiUrl(first.repo, folderOf(first.path), opts.baseUrl ?? DEFAULT_HUB_URL), opts, where);
    if (!listing) continue;
    for (const f of files) compare(f, listing.get(f.path), where);
  }
}
