import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveBundle, WeightsError, type ModelBundle } from '../../../core/weights';
import { startHubServer, type HubServer } from '../../fixtures/hub/server';

const graph = new Uint8Array(5000).map((_, i) => (i * 7) % 251);
const bundle: ModelBundle = {
  id: 'test-llm',
  repo: 'org/model',
  revision: 'main',
  dtype: 'q4',
  task: 'llm',
  backends: ['wasm'],
  label: 'Test',
  license: 'MIT',
  files: [
    { path: 'config.json', size: 1 }, // catalog estimates; the server knows the truth
    { path: 'generation_config.json', size: 1, optional: true },
    { path: 'onnx/model_q4.onnx', size: 1 },
  ],
};

let server: HubServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('resolveBundle', () => {
  it('takes exact sizes and LFS sha256 from the tree API in one request', async () => {
    server = await startHubServer({ files: { 'org/model/config.json': '{"a":1}', 'org/model/onnx/model_q4.onnx': graph } });
    const resolved = await resolveBundle(bundle, { fetch, baseUrl: server.url });
    expect(resolved.files).toEqual([
      { path: 'config.json', size: 7 },
      { path: 'generation_config.json', size: 1, optional: true },
      { path: 'onnx/model_q4.onnx', size: 5000, sha256: createHash('sha256').update(graph).digest('hex') },
    ]);
    expect(server.log.map((e) => e.path)).toEqual(['/api/models/org/model/tree/main']);
  });

  it('falls back to Range probes on a mirror without the API, and reports a missing required file', async () => {
    server = await startHubServer({ files: { 'org/model/config.json': '{"a":1}', 'org/model/onnx/model_q4.onnx': graph } });
    const noApi: typeof fetch = (input, init) => {
      const url = String(input);
      if (url.includes('/api/')) return Promise.resolve(new Response('Not found', { status: 404 }));
      return fetch(input, init);
    };
    const resolved = await resolveBundle(bundle, { fetch: noApi, baseUrl: server.url });
    expect(resolved.files.map((f) => f.size)).toEqual([7, 1, 5000]);
    expect(resolved.files[2]?.sha256).toBeUndefined();
    expect(server.log.filter((e) => e.range === 'bytes=0-0')).toHaveLength(3);

    const broken = { ...bundle, files: [...bundle.files, { path: 'tokenizer.json', size: 1 }] };
    const err = await resolveBundle(broken, { fetch: noApi, baseUrl: server.url }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WeightsError);
    expect((err as WeightsError).code).toBe('not_found');
    expect((err as WeightsError).path).toBe('tokenizer.json');
  });
});
