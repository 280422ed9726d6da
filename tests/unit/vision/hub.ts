/**
 * The vision fixture repo in a temp dir, served by the shared hub server, with transformers.js pointed at it over
 * HTTP only (no local model files, a fresh download cache).
 */
import { generateVisionFixture, type VisionFixtureRepo } from '../../fixtures/vision/generate';
import { serveFixtureRepos } from '../models/hub-env';
import type { HubServer } from '../../fixtures/hub/server';

export interface VisionHub {
  hub: HubServer;
  fixture: VisionFixtureRepo;
  close(): Promise<void>;
}

export async function startVisionHub(): Promise<VisionHub> {
  const served = await serveFixtureRepos((root) => generateVisionFixture(root));
  return { hub: served.hub, fixture: served.repos, close: served.close };
}
