import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ASR_MODELS, LLM_MODEL, TTS_BUNDLE } from '../../models/registry';
import { VISION_MODEL } from '../../models/vision/detector-spec';
import { startHubServer, type HubFault, type HubLogEntry, type HubServer } from '../fixtures/hub/server';
import { repoKey, writeFixtureHub, type FixtureLayoutOptions } from '../fixtures/hub/layout';
import { buildFileUrl } from '../../core/weights/registry';
import { fileByRole, manifestBundles } from '../../core/weights/manifest';
import type { WeightsManifest } from '../../core/weights/manifest';
import { buildExtensionFor, type FixtureBuildKind } from './fixture-build';

export interface FixtureHub {
  hub: HubServer;
  root: string;
  repos: { llm: string; moonshine: string; whisper: string; tts: string; vision: string };
  /** The fixture manifest the test build pins (same repos and paths as the release manifest, fixture bytes). */
  manifest: WeightsManifest;
  /** The extension built with that manifest: pass it to launchExtension. */
  extensionDir: string;
  /** One pinned file of a bundle: its cache key/URL on this hub, its fault key, its fixture size. */
  file(bundleId: string, role: string): PinnedFixture;
  close(): Promise<void>;
}

export interface PinnedFixture {
  path: string;
  size: number;
  /** The resolve URL at the pinned commit on this hub: also the key of the file in Cache Storage. */
  url: string;
  /** Key for hub faults and log paths ('org/name/path', or 'spaces/org/name/path'). */
  key: string;
}

/** GETs that moved bytes of a file: at the CDN for LFS files (the hub's 302 carries none), at the hub otherwise. */
export function transfers(log: readonly HubLogEntry[], file: PinnedFixture): HubLogEntry[] {
  const resolvePath = decodeURIComponent(new URL(file.url).pathname);
  return log.filter(
    (e) =>
      e.method === 'GET' && e.status !== 302 && (e.path === `/cdn/${file.key}` || decodeURIComponent(e.path) === resolvePath),
  );
}

/**
 * Every model the extension downloads, as contract-exact fixtures laid out like the real hub (tests/fixtures/hub/
 * layout.ts), served by the local hub stand-in with its CDN redirect, and an extension build that pins the fixture
 * bytes. The extension is pointed at the hub through its mirror URL setting.
 */
export async function startFixtureHub(
  faults: (repos: FixtureHub['repos']) => Record<string, HubFault> = () => ({}),
  options: FixtureLayoutOptions & { build?: FixtureBuildKind } = {},
): Promise<FixtureHub> {
  const root = mkdtempSync(join(tmpdir(), 'sidetalk-hub-'));
  const layout = await writeFixtureHub(root, options);
  const repos = {
    llm: LLM_MODEL.repo,
    moonshine: ASR_MODELS.moonshine.repo,
    whisper: ASR_MODELS.whisper.repo,
    tts: TTS_BUNDLE.files[0]!.repo.id,
    vision: VISION_MODEL.repo,
  };
  const hub = await startHubServer({ ...layout.hubOptions, faults: faults(repos) });
  const extensionDir = await buildExtensionFor(layout.manifest, options.build);
  return {
    hub,
    root,
    repos,
    manifest: layout.manifest,
    extensionDir,
    file(bundleId, role) {
      const bundle = manifestBundles(layout.manifest).find((b) => b.id === bundleId);
      if (!bundle) throw new Error(`no bundle ${bundleId}`);
      const f = fileByRole(bundle, role);
      return { path: f.path, size: f.size, url: buildFileUrl(f, hub.url), key: `${repoKey(f.repo)}/${f.path}` };
    },
    async close() {
      await hub.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
