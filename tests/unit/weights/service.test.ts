import { afterEach, describe, expect, it } from 'vitest';
import { MemoryByteStore, WeightsService, type DownloadProgress, type ModelBundle, type WeightsSnapshot } from '../../../core/weights';
import { startHubServer, type HubServer } from '../../fixtures/hub/server';

const bytes = (n: number, seed: number) => new Uint8Array(n).map((_, i) => (i * seed + 3) % 251);
const catalog: ModelBundle[] = ['a', 'b'].map((name) => ({
  id: `bundle-${name}`,
  repo: `org/${name}`,
  revision: 'main',
  dtype: 'q4',
  task: 'llm' as const,
  backends: ['wasm' as const],
  label: name,
  license: 'MIT',
  files: [
    { path: 'config.json', size: 10 },
    { path: 'onnx/model.onnx', size: 10 },
  ],
}));

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
  it('resolves exact sizes, downloads queued bundles one at a time and publishes snapshots', async () => {
    server = await startHubServer({
      files: {
        'org/a/config.json': '{"model":"a"}',
        'org/a/onnx/model.onnx': bytes(300_000, 7),
        'org/b/config.json': '{"model":"b"}',
        'org/b/onnx/model.onnx': bytes(200_000, 11),
      },
    });
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
    server = await startHubServer({ files: { 'org/b/config.json': '{}', 'org/b/onnx/model.onnx': bytes(1000, 3) } });
    const { svc, snapshots } = service();
    svc.download(['bundle-a', 'bundle-b'], server.url);
    await svc.idle();
    const last = snapshots.at(-1)!;
    expect(last.lastError).toBeNull(); // the error belonged to bundle-a's run; bundle-b's run cleared it
    expect(snapshots.some((s) => s.lastError?.bundleId === 'bundle-a' && s.lastError.code === 'not_found')).toBe(true);
    expect(last.bundles.find((b) => b.id === 'bundle-b')?.status).toBe('complete');
    expect(await svc.delete('bundle-b', server.url)).toBe(1002);
    expect(snapshots.at(-1)!.bundles.find((b) => b.id === 'bundle-b')?.status).toBe('missing');
    expect(() => svc.download(['nope'], server!.url)).toThrow(/no bundle nope/);
  });

  it('cancel keeps the parts so the next download resumes with a Range request', async () => {
    server = await startHubServer({
      files: { 'org/a/config.json': '{}', 'org/a/onnx/model.onnx': bytes(3_000_000, 5) },
      faults: { 'org/a/onnx/model.onnx': { kind: 'slow', delayMs: 20, chunkBytes: 64 * 1024, times: 1 } },
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
