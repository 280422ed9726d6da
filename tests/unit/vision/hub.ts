/**
 * The vision fixture repo in a temp dir, served by the shared hub server, with transformers.js pointed at it over
 * HTTP only (no local model files, a fresh download cache).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env } from '@huggingface/transformers';
import { startHubServer, type HubServer } from '../../fixtures/hub/server';
import { generateVisionFixture, type VisionFixtureRepo } from '../../fixtures/vision/generate';

export interface VisionHub {
  hub: HubServer;
  fixture: VisionFixtureRepo;
  close(): Promise<void>;
}

export async function startVisionHub(): Promise<VisionHub> {
  const root = await mkdtemp(join(tmpdir(), 'sidetalk-vision-repo-'));
  const cache = await mkdtemp(join(tmpdir(), 'sidetalk-vision-cache-'));
  const fixture = await generateVisionFixture(root);
  const hub = await startHubServer({ root });
  env.allowLocalModels = false;
  env.allowRemoteModels = true;
  env.remoteHost = `${hub.url}/`;
  env.remotePathTemplate = '{model}/resolve/{revision}/';
  env.cacheDir = cache;
  return {
    hub,
    fixture,
    async close() {
      await hub.close();
      await rm(root, { recursive: true, force: true });
      await rm(cache, { recursive: true, force: true });
    },
  };
}
