// What is cached, per bundle, read from the store (the source of truth), and a JSON snapshot of it that the
// background service worker keeps in chrome.storage.local so the UI can render without asking the offscreen document.
import { z } from 'zod';
import type { ByteStore } from './byte-store';
import { buildFileUrl, bundleTotalBytes } from './registry';
import type { BundleState, FileState, ModelBundle } from './types';

export async function bundleState(bundle: ModelBundle, store: ByteStore, baseUrl?: string): Promise<BundleState> {
  const files: FileState[] = [];
  for (const f of bundle.files) {
    const key = buildFileUrl(f, baseUrl);
    if (await store.isComplete(key)) {
      files.push({ role: f.role, path: f.path, status: 'complete', bytes: f.size, size: f.size });
      continue;
    }
    const bytes = (await store.parts(key)).reduce((s, p) => s + p.size, 0);
    files.push({ role: f.role, path: f.path, status: bytes > 0 ? 'partial' : 'missing', bytes, size: f.size });
  }
  // Optional files (a 404 is allowed) never keep a bundle from being complete.
  const required = files.filter((_, i) => !bundle.files[i]?.optional);
  const bytesStored = files.reduce((s, f) => s + f.bytes, 0);
  const status = required.every((f) => f.status === 'complete') ? 'complete' : bytesStored > 0 ? 'partial' : 'missing';
  return { id: bundle.id, status, bytesStored, totalBytes: bundleTotalBytes(bundle), files };
}

/** Deletes every stored byte (complete entries and parts) of the bundle under `baseUrl`; returns bytes freed. */
export async function deleteBundle(bundle: ModelBundle, store: ByteStore, baseUrl?: string): Promise<number> {
  const before = await bundleState(bundle, store, baseUrl);
  for (const f of bundle.files) await store.delete(buildFileUrl(f, baseUrl));
  return before.bytesStored;
}

const fileStateSchema = z.object({
  role: z.string(),
  path: z.string(),
  status: z.enum(['complete', 'partial', 'missing']),
  bytes: z.number().int().nonnegative(),
  size: z.number().int().nonnegative(),
});

export const bundleStateSchema = z.object({
  id: z.string(),
  status: z.enum(['complete', 'partial', 'missing']),
  bytesStored: z.number().int().nonnegative(),
  totalBytes: z.number().int().nonnegative(),
  files: z.array(fileStateSchema),
});

export const weightsSnapshotSchema = z.object({
  version: z.literal(2),
  /** Validated mirror base URL in use ('https://huggingface.co' by default). */
  baseUrl: z.string(),
  updatedAt: z.number(),
  bundles: z.array(bundleStateSchema),
  /** The download in progress, if any. */
  active: z.object({ bundleId: z.string(), path: z.string() }).nullable(),
  /** Last failure, as code + the user-facing sentence (no URLs). */
  lastError: z.object({ bundleId: z.string(), code: z.string(), message: z.string() }).nullable(),
});

export type WeightsSnapshot = z.infer<typeof weightsSnapshotSchema>;

export async function buildSnapshot(
  bundles: ModelBundle[],
  store: ByteStore,
  baseUrl: string,
  now: number,
  extra: Pick<WeightsSnapshot, 'active' | 'lastError'> = { active: null, lastError: null },
): Promise<WeightsSnapshot> {
  const states: BundleState[] = [];
  for (const b of bundles) states.push(await bundleState(b, store, baseUrl));
  return { version: 2, baseUrl, updatedAt: now, bundles: states, ...extra };
}

/** Parses a persisted snapshot; undefined when absent or from an older/corrupt format (then rebuild from the store). */
export function parseSnapshot(value: unknown): WeightsSnapshot | undefined {
  const r = weightsSnapshotSchema.safeParse(value);
  return r.success ? r.data : undefined;
}
