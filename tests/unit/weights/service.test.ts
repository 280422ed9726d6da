import { afterEach, describe, expect, it } from 'vitest';
import {
  MemoryByteStore,
  WeightsService,
  type DownloadProgress,
  type ModelBundle,
  type WeightsSnapshot,
} from '../../../core/weights';
import { startHubServer, type HubServer } from '../../fixtures/hub/server';

const bytes = (n: number, seed: number) => new Uint8Array(n).map((_, i) => (i * seed + 3) % 251);
/** The served bytes: a bundle's sizes are exact (they come from the pinned manifest in the product). */
const SERVED = {
  a: { config: '{"model":"a"}', model: bytes(300_000, 7) },
  b: { config: '{"model":"b"}', model: bytes(200_000, 11) },
};
const served = (name: 'a' | 'b') => ({
  [`org/${name}/config.json`]: SERVED[name].config,
  [`org/${name}/onnx/model.onnx`]: SERVED[name].model,
});
const catalog: ModelBundle[] = (['a', 'b'] as const).map((name) => {
  const repo = { type: 'model' as const, id: `org/${name}`, revision: 'main' };
  return {
    id: `bundle-${name}`,
    dtype: 'q4',
    task: 'llm' as const,
    backends: ['wasm' as const],
    label: name,
    license: 'MIT',
    default: true,
    files: [
      { role: 'config', repo, path: 'config.json', size: SERVED[name].config.length },
      { role: 'model', repo, path: 'onnx/model.onnx', size: SERVED[name].model.byteLength },
    ],
  };
});

let server: HubServer | undefined;
afterEach(async () => {
  await server?.close();
});

function service(store = new MemoryByteStore()) {
  const progress: DownloadProgress[] = [];
  const snapshots: WeightsSnapshot[] = [];
  const svc = new WeightsService({
    fetch: (input, init) => fetch(input, init),
    store,
    now: () => performance.now(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    catalog,
    onProgress: (p) => progress.push(p),
    onSnapshot: (s) => snapshots.push(s),
  });
  return { svc, progress, snapshots, store };
}

describe('WeightsService', () => {
  it('checks the listing, downloads queued bundles one at a time and publishes snapshots', async () => {
    server = await startHubServer({ files: { ...served('a'), ...served('b') } });
    const { svc, progress, snapshots } = service();
    expect(svc.download(['bundle-a', 'bundle-b', 'bundle-a'], server.url).queued).toEqual(['bundle-b']);
    await svc.idle();
    const last = snapshots.at(-1)!;
    expect(last.bundles.map((b) => [b.id, b.status, b.bytesStored])).toEqual([
      ['bundle-a', 'complete', 300_013],
      ['bundle-b', 'complete', 200_013],
    ]);
    expect(last.active).toBeNull();
    expect(last.lastError).toBeNull();
    expect(progress.at(-1)).toMatchObject({ bundleId: 'bundle-b', bytes: 200_013, total: 200_013 });
    // the snapshot sequence shows each bundle active in turn
    expect(snapshots.map((s) => s.active?.bundleId ?? null).filter(Boolean)).toEqual(['bundle-a', 'bundle-b']);
  });

  it('reports a missing file as a user-facing error, keeps going, and deletes a bundle', async () => {
    server = await startHubServer({ files: served('b') });
    const { svc, snapshots } = service();
    svc.download(['bundle-a', 'bundle-b'], server.url);
    await svc.idle();
    const last = snapshots.at(-1)!;
    expect(last.lastError).toBeNull(); // the error belonged to bundle-a's run; bundle-b's run cleared it
    expect(snapshots.some((s) => s.lastError?.bundleId === 'bundle-a' && s.lastError.code === 'not_found')).toBe(true);
    expect(last.bundles.find((b) => b.id === 'bundle-b')?.status).toBe('complete');
    expect(await svc.delete('bundle-b', server.url)).toBe(200_013);
    expect(snapshots.at(-1)!.bundles.find((b) => b.id === 'bundle-b')?.status).toBe('missing');
    expect(() => svc.download(['nope'], server!.url)).toThrow(/no bundle nope/);
  });

  it('cancel keeps the parts so the next download resumes with a Range request', async () => {
    server = await startHubServer({
      files: served('a'),
      faults: { 'org/a/onnx/model.onnx': { kind: 'slow', delayMs: 20, chunkBytes: 16 * 1024, times: 1 } },
    });
    const store = new MemoryByteStore();
    const { svc, progress, snapshots } = service(store);
    svc.download(['bundle-a'], server.url);
    while (!progress.some((p) => p.path === 'onnx/model.onnx' && p.fileBytes > 0)) await new Promise((r) => setTimeout(r, 10));
    svc.cancel();
    await svc.idle();
    expect(snapshots.at(-1)!.lastError?.code).toBe('aborted');
    svc.download(['bundle-a'], server.url);
    await svc.idle();
    expect(snapshots.at(-1)!.bundles[0]?.status).toBe('complete');
    const ranged = server.log.filter((e) => e.path.endsWith('model.onnx') && e.range?.match(/^bytes=[1-9]\d*-$/));
    expect(ranged.length).toBeGreaterThan(0);
  });
});
