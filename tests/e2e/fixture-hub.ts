import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TTS_BUNDLE } from '../../models/registry';
import { startHubServer, type HubFault, type HubServer } from '../fixtures/hub/server';
import { generateFixtureRepos, type FixtureRepos } from '../fixtures/models/generate';
import { writePocketBundle } from '../fixtures/pocket/generate';
import type { DecoderVariant } from '../fixtures/pocket/graphs';
import { generateVisionFixture } from '../fixtures/vision/generate';

export interface FixtureHub {
  hub: HubServer;
  root: string;
  repos: FixtureRepos & { tts: string; vision: string };
  close(): Promise<void>;
}

/**
 * Every model the extension downloads, as contract-exact fixture repos under the real repo ids, served by the local
 * hub mirror (Range, tree API, faults). The extension is pointed at it through its mirror URL setting.
 */
export async function startFixtureHub(
  faults: (repos: FixtureHub['repos']) => Record<string, HubFault> = () => ({}),
  options: { ttsGpuDecoder?: DecoderVariant } = {},
): Promise<FixtureHub> {
  const root = mkdtempSync(join(tmpdir(), 'sidetalk-hub-'));
  const models = await generateFixtureRepos(root);
  // The int8 graphs (WASM) and, under the plain names, the fp32 GPU graphs; `ttsGpuDecoder` breaks only the latter.
  writePocketBundle(join(root, TTS_BUNDLE.repo), { decoder: options.ttsGpuDecoder ?? 'sine' });
  writePocketBundle(join(root, TTS_BUNDLE.repo), { int8Names: true });
  const vision = await generateVisionFixture(root);
  const repos = { ...models, tts: TTS_BUNDLE.repo, vision: vision.repo };
  const hub = await startHubServer({ root, faults: faults(repos) });
  return {
    hub,
    root,
    repos,
    async close() {
      await hub.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
