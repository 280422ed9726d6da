// TextEmbedder over the page-embedding fixture (tests/fixtures/embed: the pinned repo's file names and graph contract,
// SIF-weighted GloVe vectors inside), downloaded over HTTP from the local hub and run by the real transformers.js +
// onnxruntime-node code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { TextEmbedder } from '../../../models/embed/text-embedder';
import { EMBED_BUNDLE } from '../../../models/registry';
import { dot } from '../../../core/page/dense';
import { embedFixtureFiles, generateEmbedFixture } from '../../fixtures/embed/generate';
import { expectRequestsInManifest, serveFixtureRepos, type ServedRepos } from './hub-env';

let hub: ServedRepos<void>;
let embedder: TextEmbedder;

beforeAll(async () => {
  hub = await serveFixtureRepos((root) => generateEmbedFixture(root));
  embedder = await TextEmbedder.load({ device: 'cpu' });
}, 60_000);

afterAll(async () => {
  await embedder?.dispose();
  await hub?.close();
});

describe('TextEmbedder (fixture with the real contract)', () => {
  it('reads only the pinned files at the pinned commit', () => {
    const files = expectRequestsInManifest(hub.hub.log, EMBED_BUNDLE);
    expect(files).toEqual(expect.arrayContaining(['onnx/model.onnx', 'tokenizer.json', 'config.json']));
  });

  it('has the graph contract of the pinned export (docs/models.md § Page embeddings)', async () => {
    const session = await ort.InferenceSession.create(embedFixtureFiles()['onnx/model.onnx']!);
    expect([...session.inputNames].sort()).toEqual(['attention_mask', 'input_ids', 'token_type_ids']);
    expect(session.outputNames).toEqual(['last_hidden_state']);
    const t = (values: bigint[]) => new ort.Tensor('int64', BigInt64Array.from(values), [1, 2]);
    const out = await session.run({ input_ids: t([101n, 102n]), attention_mask: t([1n, 1n]), token_type_ids: t([0n, 0n]) });
    expect(out.last_hidden_state!.dims).toEqual([1, 2, 384]);
    await session.release();
  });

  it('gives one unit vector per text, of the hidden size, whatever the padding', async () => {
    const [a, b, c] = await embedder.embed(['coverage', 'the warranty ends after two years of ownership', '']);
    for (const v of [a!, b!]) {
      expect(v.length).toBe(384);
      expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    }
    // An empty text has only [CLS] and [SEP], whose rows are zero: similar to nothing.
    expect(Math.hypot(...c!)).toBe(0);
    // Padding to a longer batch neighbour does not change a text's vector.
    const [alone] = await embedder.embed(['coverage']);
    expect(dot(alone!, a!)).toBeCloseTo(1, 5);
  });

  it('places a paraphrase nearer its passage than an unrelated one', async () => {
    const [question, answer, other] = await embedder.embed([
      'when does the warranty end',
      'coverage expires after twenty four months from the date of purchase',
      'the battery can be recharged with the cable in the box',
    ]);
    expect(dot(question!, answer!)).toBeGreaterThan(dot(question!, other!) + 0.05);
  });
});
