// Shared set-up for the weights tests: deterministic file bytes, a bundle served by the local hub, a fake clock and a
// downloader wired like the offscreen document wires it (real fetch, real sockets).
import { createHash } from 'node:crypto';
import { WeightsDownloader, type DownloaderOptions } from '../../../core/weights/downloader';
import type { ByteStore } from '../../../core/weights/byte-store';
import type { BundleFile, DownloadEvent, HubRepo, ModelBundle } from '../../../core/weights/types';

export function fileBytes(n: number, seed = 1): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed * 2654435761;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

export const sha256Hex = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export const REPO = 'test-org/tiny-model';
export const MODEL = fileBytes(300_000, 1);
export const DATA = fileBytes(120_000, 2);
export const CONFIG = new TextEncoder().encode('{"model_type":"tiny"}');

export function hubFiles(): Record<string, Uint8Array> {
  return {
    [`${REPO}/config.json`]: CONFIG,
    [`${REPO}/onnx/model.onnx`]: MODEL,
    [`${REPO}/onnx/model.onnx_data`]: DATA,
  };
}

/** The tiny repo as a bundle file's repo; downloader mechanics tests use the branch name the server answers. */
export function tinyRepo(id = REPO, revision = 'main'): HubRepo {
  return { type: 'model', id, revision };
}

/** Where a tiny bundle file lives: for `dl.urlOf(...)` store keys. */
export function tinyFile(path: string, repo = REPO): Pick<BundleFile, 'repo' | 'path'> {
  return { repo: tinyRepo(repo), path };
}

type TinyOverrides = Partial<Omit<ModelBundle, 'files'>> & {
  repo?: string;
  revision?: string;
  files?: Array<Omit<BundleFile, 'repo' | 'role'> & { role?: string }>;
};

export function tinyBundle(overrides: TinyOverrides = {}): ModelBundle {
  const { repo = REPO, revision = 'main', files, ...rest } = overrides;
  const list = files ?? [
    { path: 'config.json', size: CONFIG.byteLength },
    { path: 'onnx/model.onnx', size: MODEL.byteLength, sha256: sha256Hex(MODEL) },
    { path: 'onnx/model.onnx_data', size: DATA.byteLength, sha256: sha256Hex(DATA) },
    { path: 'generation_config.json', size: 20, optional: true },
  ];
  return {
    id: 'tiny',
    files: list.map((f) => ({ role: f.path, ...f, repo: tinyRepo(repo, revision) })),
    dtype: 'fp32',
    task: 'llm',
    backends: ['webgpu', 'wasm'],
    label: 'Tiny test model',
    license: 'apache-2.0',
    default: false,
    ...rest,
  };
}

/** A clock that advances 20 ms on every read: rates and ETAs are exact functions of the calls. */
export function fakeClock(stepMs = 20): () => number {
  let t = 1_000_000;
  return () => (t += stepMs);
}

export function makeDownloader(
  store: ByteStore,
  baseUrl: string,
  extra: Partial<DownloaderOptions> = {},
): { dl: WeightsDownloader; events: DownloadEvent[] } {
  const events: DownloadEvent[] = [];
  const dl = new WeightsDownloader({
    fetch: (input, init) => fetch(input, init),
    store,
    baseUrl,
    now: fakeClock(),
    sleep: async (_ms, signal) => {
      if (signal?.aborted) throw new DOMException('aborted', 'AbortError');
    },
    subtle: globalThis.crypto.subtle,
    onEvent: (e) => events.push(e),
    settings: { partBytes: 64 * 1024, progressIntervalMs: 0, retryBaseDelayMs: 0 },
    ...extra,
  });
  return { dl, events };
}

export async function responseBytes(r: Response | undefined): Promise<Uint8Array | undefined> {
  return r ? new Uint8Array(await r.arrayBuffer()) : undefined;
}

/** sha256 of a stored Response body (vitest's deep equality on 300 KB arrays is slow; a digest is exact and fast). */
export async function digestOf(r: Response | undefined): Promise<string | undefined> {
  const b = await responseBytes(r);
  return b ? sha256Hex(b) : undefined;
}
