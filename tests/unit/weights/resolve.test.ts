import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { preflightBundle, WeightsError, type BundleFile, type HubRepo, type ModelBundle } from '../../../core/weights';
import { startHubServer, type HubServer } from '../../fixtures/hub/server';
import { weightsTunables } from '../../../core/tunables';

const COMMIT = '58a6d00cf13d239b6748cb0769f35c580a8f606c';
const SPACE_COMMIT = 'd0c0c79b7712256a32d691c67f20b8ae2e020d00';
const graph = new Uint8Array(5000).map((_, i) => (i * 7) % 251);
const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const model: HubRepo = { type: 'model', id: 'org/model', revision: COMMIT };
const space: HubRepo = { type: 'space', id: 'org/web', revision: SPACE_COMMIT };
const voices = new Uint8Array(300).fill(3);

/** One model-repo folder with a same-named decoy in another folder, and a file from a Space. */
function files(): Record<string, Uint8Array | string> {
  return {
    'org/model/onnx/english/bundle.json': '{"a":1}',
    'org/model/onnx/english/model_int8.onnx': graph,
    'org/model/onnx/french/bundle.json': '{"decoy":true}',
    'org/model/onnx/french/model_int8.onnx': new Uint8Array(10),
    'spaces/org/web/onnx/english/voices.bin': voices,
  };
}

function bundle(overrides: Partial<Record<string, Partial<BundleFile>>> = {}): ModelBundle {
  const list: BundleFile[] = [
    { role: 'bundle_json', repo: model, path: 'onnx/english/bundle.json', size: 7 },
    { role: 'graph', repo: model, path: 'onnx/english/model_int8.onnx', size: 5000, sha256: sha(graph) },
    { role: 'extra', repo: model, path: 'onnx/english/extra.json', size: 3, optional: true },
    { role: 'voices', repo: space, path: 'onnx/english/voices.bin', size: 300, sha256: sha(voices) },
  ];
  return {
    id: 'tts',
    dtype: 'int8',
    task: 'tts',
    backends: ['wasm'],
    label: 'Test',
    license: 'MIT',
    default: true,
    files: list.map((f) => ({ ...f, ...overrides[f.role] })),
  };
}

let server: HubServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function failure(b: ModelBundle, opts: { fetch?: typeof fetch } = {}): Promise<WeightsError> {
  const err = await preflightBundle(b, { fetch: opts.fetch ?? fetch, baseUrl: server!.url }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WeightsError);
  return err as WeightsError;
}

describe('preflightBundle: the hub listing at the pinned commits against the manifest', () => {
  it('asks one tree listing per repo folder (model and Space) and accepts a listing that matches', async () => {
    server = await startHubServer({ files: files(), revisions: { 'org/model': COMMIT, 'spaces/org/web': SPACE_COMMIT } });
    await preflightBundle(bundle(), { fetch, baseUrl: server.url });
    expect(server.log.map((e) => [e.path, e.status])).toEqual([
      [`/api/models/org/model/tree/${COMMIT}/onnx/english`, 200],
      [`/api/spaces/org/web/tree/${SPACE_COMMIT}/onnx/english`, 200],
    ]);
  });

  it('follows the Link header through paged listings', async () => {
    server = await startHubServer({ files: files(), treePageSize: 1 });
    await preflightBundle(bundle(), { fetch, baseUrl: server.url });
    expect(server.log.filter((e) => e.path.includes('/api/models/')).length).toBe(2);
  });

  it('reports a file that is not at the pinned path as not_found before any download (a same-named decoy elsewhere does not count)', async () => {
    server = await startHubServer({ files: files() });
    const err = await failure(bundle({ bundle_json: { path: 'onnx/german/bundle.json' } }));
    expect(err.code).toBe('not_found');
    expect(err.path).toBe('onnx/german/bundle.json');
    expect(server.log.some((e) => e.path.includes('/resolve/'))).toBe(false);
  });

  it('reports a size or hash that differs from the manifest as an integrity error naming the file', async () => {
    server = await startHubServer({ files: files() });
    expect((await failure(bundle({ graph: { size: 5001 } }))).code).toBe('integrity');
    const err = await failure(bundle({ voices: { sha256: sha('other bytes') } }));
    expect(err.code).toBe('integrity');
    expect(err.userMessage).toMatch(/^voices\.bin did not match/);
  });

  it('a hub that does not have the pinned commit fails at once (RevisionNotFound), before any download', async () => {
    server = await startHubServer({ files: files(), revisions: { 'org/model': 'f'.repeat(40) } });
    const err = await failure(bundle());
    expect(err.code).toBe('not_found');
    expect(err.message).toMatch(/pinned commit of org\/model@58a6d00 is not on this server/);
    expect(server.log.map((e) => e.status)).toEqual([404]);
  });

  it('skips a listing that hangs after the preflight timeout, rather than holding the download', async () => {
    server = await startHubServer({ files: files() });
    const before = weightsTunables.preflightTimeoutMs;
    weightsTunables.preflightTimeoutMs = 1000;
    const hanging: typeof fetch = (input, init) =>
      String(input).includes('/api/')
        ? new Promise((_, reject) =>
            init?.signal?.addEventListener('abort', () => reject(new DOMException('timeout', 'TimeoutError'))),
          )
        : fetch(input, init);
    try {
      const t0 = Date.now();
      await preflightBundle(bundle({ graph: { size: 1 } }), { fetch: hanging, baseUrl: server.url });
      expect(Date.now() - t0).toBeLessThan(10_000);
    } finally {
      weightsTunables.preflightTimeoutMs = before;
    }
  });

  it('skips the check on a mirror without the tree API', async () => {
    server = await startHubServer({ files: files() });
    const noApi: typeof fetch = (input, init) =>
      String(input).includes('/api/') ? Promise.resolve(new Response('Not found', { status: 404 })) : fetch(input, init);
    await preflightBundle(bundle({ graph: { size: 1 } }), { fetch: noApi, baseUrl: server.url });
  });
});
