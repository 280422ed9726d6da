/**
 * Writes the pinned Moonshine repo (models/registry.ts ASR_MODELS.moonshine: its repo, dtypes and file names) into a
 * folder in the hub's layout, with real-size graphs of random weights in place of the real weights, which cannot be
 * downloaded here: the encoder of bench/stages/moonshine-graphs.ts in the published contract and the merged decoder
 * of asr-graphs.ts. The other files are the test fixture's (tests/fixtures/models/generate.ts) with the real
 * dimensions and a tokenizer covering the whole vocabulary.
 */
import { writeMoonshineRepo } from '../../tests/fixtures/models/generate';
import { buildMoonshineEncoder, type MoonshineShape } from '../stages/moonshine-graphs';
import { buildMoonshineMergedDecoder } from './asr-graphs';

export interface WrittenAsr {
  graphMs: number;
  encoderBytes: number;
  decoderBytes: number;
  decoderNodes: number;
}

export async function writeMoonshineHub(root: string, shape: MoonshineShape): Promise<WrittenAsr> {
  const t0 = performance.now();
  const encoder = buildMoonshineEncoder(shape, 'float32', 21, false);
  const decoder = buildMoonshineMergedDecoder(shape);
  const graphMs = performance.now() - t0;
  const dims = { vocab: shape.vocab, hidden: shape.d, layers: shape.decLayers, heads: shape.heads, bos: 1, eos: 2 };
  await writeMoonshineRepo(root, dims, { encoder: encoder.onnx, decoder: decoder.onnx });
  return { graphMs, encoderBytes: encoder.onnx.length, decoderBytes: decoder.onnx.length, decoderNodes: decoder.nodes };
}
