/**
 * A temporary folder in the hub's layout, filled by `write`, served over HTTP by the test hub server at the pinned
 * commits, with transformers.js pointed at it as the extension points it at the real hub (remote only, no cache).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env } from '@huggingface/transformers';
import { WEIGHTS_MANIFEST } from '../../models/registry';
import { startHubServer } from '../../tests/fixtures/hub/server';

export async function serveLocalHub<T>(write: (root: string) => Promise<T>): Promise<{ written: T; close(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'sidetalk-bench-hub-'));
  const written = await write(root);
  const revisions = Object.fromEntries(Object.values(WEIGHTS_MANIFEST.repos).map((r) => [r.id, r.commit]));
  const hub = await startHubServer({ root, revisions });
  env.allowLocalModels = false;
  env.allowRemoteModels = true;
  env.useBrowserCache = false;
  env.remoteHost = `${hub.url}/`;
  env.remotePathTemplate = '{model}/resolve/{revision}/';
  return {
    written,
    close: async () => {
      await hub.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
