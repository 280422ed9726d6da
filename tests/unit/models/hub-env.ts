/**
 * Test setup shared by the model runtime tests: fixture repos in a temp dir, served by the local hub server, and
 * transformers.js pointed at it over HTTP only (no local model files, a fresh download cache per suite).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env } from '@huggingface/transformers';
import { generateFixtureRepos, writeLlmRepo, type FixtureRepos } from '../../fixtures/models/generate';
import { buildLfm2ExporterGraph, type Lfm2ExporterStyle } from '../../../bench/stages/lfm2-exporter-graphs';
import { LFM2_TINY } from '../../../bench/stages/llm-graph';
import { startHubServer, type HubServer, type HubLogEntry } from '../../fixtures/hub/server';
import { WEIGHTS_MANIFEST } from '../../../models/registry';
import type { ModelBundle } from '../../../core/weights/types';
import { expect } from 'vitest';

export interface ServedRepos<T> {
  hub: HubServer;
  repos: T;
  close(): Promise<void>;
}

export type HubEnv = ServedRepos<FixtureRepos>;

export function startFixtureHub(): Promise<HubEnv> {
  return serveFixtureRepos(generateFixtureRepos);
}

/** Writes fixture repos with `generate` into a temp dir, serves them, and points transformers.js at the server. */
export async function serveFixtureRepos<T>(generate: (root: string) => Promise<T>): Promise<ServedRepos<T>> {
  const root = await mkdtemp(join(tmpdir(), 'sidetalk-fixture-repos-'));
  const cache = await mkdtemp(join(tmpdir(), 'sidetalk-tjs-cache-'));
  const repos = await generate(root);
  // Only the pinned commit of each manifest repo resolves, as on the real hub for a commit that exists.
  const revisions = Object.fromEntries(Object.values(WEIGHTS_MANIFEST.repos).map((r) => [r.id, r.commit]));
  const hub = await startHubServer({ root, revisions });
  env.allowLocalModels = false;
  env.allowRemoteModels = true;
  env.remoteHost = `${hub.url}/`;
  env.remotePathTemplate = '{model}/resolve/{revision}/';
  env.cacheDir = cache;
  return {
    hub,
    repos,
    async close() {
      await hub.close();
      await rm(root, { recursive: true, force: true });
      await rm(cache, { recursive: true, force: true });
    },
  };
}

/** A 16 kHz test tone (amplitude 0.5) or silence. */
/**
 * Serves an LLM repo whose graph is the tiny LFM2 of one published exporter's structure (q4, external data), with a
 * tokenizer of one CJK character per remaining id: it encodes back to the same id (an answer re-rendered into the next
 * prompt keeps the cached prefix) and the streamer releases it at once (answers stream in many pieces).
 */
export function serveExporterLlm(style: Lfm2ExporterStyle): Promise<ServedRepos<void>> {
  return serveFixtureRepos(async (root) => {
    const graph = buildLfm2ExporterGraph(LFM2_TINY, style, 'q4', { external: 'model_q4.onnx_data' });
    const dims = { ...LFM2_TINY, intermediate: LFM2_TINY.ff };
    await writeLlmRepo(root, dims, { onnx: graph.onnx, data: graph.external!.data }, 'q4', (id) =>
      String.fromCodePoint(0x4e00 + id),
    );
  });
}

export function clip(seconds: number, hz: number | null): Float32Array {
  const out = new Float32Array(Math.round(16000 * seconds));
  if (hz !== null) for (let i = 0; i < out.length; i++) out[i] = 0.5 * Math.sin((2 * Math.PI * hz * i) / 16000);
  return out;
}

/**
 * Every file a runtime fetched from a bundle's repo is in the pinned manifest, at the pinned commit: the runtimes
 * (transformers.js derives file names from dtypes and configs) never open a file the weights manager did not download.
 */
export function expectRequestsInManifest(log: readonly HubLogEntry[], bundle: ModelBundle): string[] {
  const repo = bundle.files[0]!.repo;
  const prefix = `/${repo.id}/resolve/`;
  const requested = log.filter((e) => e.path.startsWith(prefix)).map((e) => e.path.slice(prefix.length));
  expect(requested.length).toBeGreaterThan(0);
  const pinned = new Set(bundle.files.map((f) => `${f.repo.revision}/${f.path}`));
  for (const path of requested) expect(pinned, `${repo.id} requested ${path}`).toContain(decodeURIComponent(path));
  return requested.map((p) => p.slice(repo.revision.length + 1));
}
