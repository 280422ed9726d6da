// The pinned weights manifest (models/manifest.json, explained in docs/models.md): every file the product downloads,
// with the repo and commit it comes from, its exact size, the sha256 of LFS files, its licence and the public source of
// each fact. The registry, the weights catalog, the workers' file maps and the UI's sizes all read it; nothing else
// names a hub path. Parsed once at the boundary: a manifest that breaks a rule below is a build-breaking error.
import { z } from 'zod';
import type { BundleFile, HubRepo, ModelBundle } from './types';

const COMMIT = /^[0-9a-f]{40}$/;
const SHA256 = /^[0-9a-f]{64}$/;

const repoSchema = z.object({
  type: z.enum(['model', 'space']),
  id: z.string().regex(/^[A-Za-z0-9][\w.-]*\/[\w.-]+$/, 'org/name'),
  commit: z.string().regex(COMMIT, 'a full 40-hex commit (never a branch)'),
  license: z.string().min(1),
  /** Where the commit and the listing were read (a URL or repo/path of public evidence). */
  source: z.string().min(1),
});

const fileSchema = z
  .object({
    role: z.string().regex(/^[a-z0-9_.-]+$/),
    repo: z.string().min(1),
    path: z
      .string()
      .min(1)
      .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'a relative path inside the repo'),
    size: z.number().int().positive(),
    /** Stored through Git LFS (or Xet) on the hub: the resolve URL redirects to a CDN and the tree lists its sha256. */
    lfs: z.boolean(),
    sha256: z.string().regex(SHA256).optional(),
    optional: z.boolean().optional(),
    /** A file under another licence than its bundle (a voice), shown to the user with its attribution. */
    license: z.string().optional(),
    attribution: z.string().optional(),
    source: z.string().min(1),
  })
  .refine((f) => !f.lfs || f.sha256 !== undefined, { message: 'every LFS file needs its pinned sha256' });

const bundleSchema = z.object({
  id: z.string().regex(/^[a-z0-9.-]+$/),
  label: z.string().min(1),
  task: z.enum(['vad', 'asr', 'turn', 'llm', 'tts', 'vision', 'embed']),
  dtype: z.string().min(1),
  backends: z.array(z.enum(['webgpu', 'wasm'])).min(1),
  license: z.string().min(1),
  default: z.boolean(),
  /** Also part of the default set where a hardware GPU runs the models (core/weights/default-set.ts). */
  gpuDefault: z.boolean().optional(),
  files: z.array(fileSchema).min(1),
});

export const weightsManifestSchema = z.object({
  schema: z.literal(1),
  /** 'fixture' only in test builds (tests/fixtures/hub/): the same repos, commits and paths with fixture bytes. */
  kind: z.enum(['release', 'fixture']),
  checked: z.string(),
  repos: z.record(z.string(), repoSchema),
  bundles: z.array(bundleSchema).min(1),
});

export type WeightsManifest = z.infer<typeof weightsManifestSchema>;
export type ManifestFile = z.infer<typeof fileSchema>;

export class ManifestError extends Error {
  override name = 'ManifestError';
}

/** Validates the manifest and cross-checks what the schema cannot: known repos, unique ids, roles and locations. */
export function parseWeightsManifest(json: unknown): WeightsManifest {
  const parsed = weightsManifestSchema.safeParse(json);
  if (!parsed.success) throw new ManifestError(`weights manifest is invalid: ${parsed.error.message}`);
  const m = parsed.data;
  const bundleIds = new Set<string>();
  const locations = new Map<string, string>();
  for (const b of m.bundles) {
    if (bundleIds.has(b.id)) throw new ManifestError(`bundle ${b.id} is listed twice`);
    bundleIds.add(b.id);
    if (b.gpuDefault && b.default) throw new ManifestError(`bundle ${b.id} is default everywhere and on GPUs only`);
    if (b.gpuDefault && !b.backends.includes('webgpu')) throw new ManifestError(`bundle ${b.id} is a GPU default without WebGPU`);
    const roles = new Set<string>();
    for (const f of b.files) {
      if (!m.repos[f.repo]) throw new ManifestError(`${b.id}/${f.role}: unknown repo key ${f.repo}`);
      if (roles.has(f.role)) throw new ManifestError(`${b.id}: role ${f.role} is listed twice`);
      roles.add(f.role);
      // One location, one set of facts: a file shared by two bundles must agree on size and hash.
      const where = `${f.repo}:${f.path}`;
      const facts = `${f.size}:${f.sha256 ?? ''}`;
      const seen = locations.get(where);
      if (seen !== undefined && seen !== facts) throw new ManifestError(`${where} has two different sizes or hashes`);
      locations.set(where, facts);
    }
  }
  return m;
}

function hubRepo(m: WeightsManifest, key: string): HubRepo {
  const r = m.repos[key]!;
  return { type: r.type, id: r.id, revision: r.commit };
}

/** The download bundles of the catalog, in manifest order. */
export function manifestBundles(m: WeightsManifest): ModelBundle[] {
  return m.bundles.map((b) => ({
    id: b.id,
    label: b.label,
    task: b.task,
    dtype: b.dtype,
    backends: [...b.backends],
    license: b.license,
    default: b.default,
    ...(b.gpuDefault ? { gpuDefault: true } : {}),
    files: b.files.map((f): BundleFile => ({
      role: f.role,
      repo: hubRepo(m, f.repo),
      path: f.path,
      size: f.size,
      ...(f.sha256 ? { sha256: f.sha256 } : {}),
      ...(f.optional ? { optional: true } : {}),
      ...(f.license ? { license: f.license } : {}),
      ...(f.attribution ? { attribution: f.attribution } : {}),
    })),
  }));
}

/** The file playing `role` in a bundle; throws when the manifest has none (a programming error, caught by tests). */
export function fileByRole(bundle: ModelBundle, role: string): BundleFile {
  const f = bundle.files.find((x) => x.role === role);
  if (!f) throw new ManifestError(`bundle ${bundle.id} has no file for role ${role}`);
  return f;
}
