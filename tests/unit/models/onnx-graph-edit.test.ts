// The protobuf editor under the static-KV rewrite (models/llm/static-kv/onnx-graph-edit.ts): a model read and written
// back unchanged keeps every node, attribute, initializer (inline and external) and input/output, as onnx-proto
// decodes them; constants read as numbers from initializers and Constant nodes alike.
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { buildLfm2ExporterGraph } from '../../../bench/stages/lfm2-exporter-graphs';
import { LFM2_TINY } from '../../../bench/stages/llm-graph';
import { constInts, producers, readModel, writeModel } from '../../../models/llm/static-kv/onnx-graph-edit';

const { onnx } = onnxProto;
const plainObject = (g: onnxProto.onnx.IGraphProto) =>
  onnx.GraphProto.toObject(onnx.GraphProto.create(g), { longs: Number, bytes: Array, defaults: false });

describe('ONNX graph editor', () => {
  for (const external of [undefined, 'model.onnx_data']) {
    it(`round-trips a model unchanged (${external ? 'external' : 'inline'} weights)`, () => {
      const bytes = buildLfm2ExporterGraph(LFM2_TINY, 'genai-builder', 'q4', { external }).onnx;
      const before = onnx.ModelProto.decode(bytes);
      const after = onnx.ModelProto.decode(writeModel(readModel(bytes)));
      const [a, b] = [plainObject(before.graph!), plainObject(after.graph!)];
      expect(b.node).toEqual(a.node);
      expect(b.initializer).toEqual(a.initializer);
      expect(b.input).toEqual(a.input);
      expect(b.output).toEqual(a.output);
      expect(after.opsetImport).toEqual(before.opsetImport);
      expect(after.irVersion).toEqual(before.irVersion);
    });
  }

  it('reads integer constants from initializers and Constant nodes, negative values included', () => {
    for (const style of ['liquid-builder', 'genai-builder'] as const) {
      const m = readModel(buildLfm2ExporterGraph(LFM2_TINY, style, 'fp32').onnx);
      const prod = producers(m);
      const unsqueeze = m.nodes.find((n) => n.opType === 'Unsqueeze')!;
      const mul = prod.get(unsqueeze.input[0]!)!;
      expect(mul.opType).toBe('Mul');
      expect(constInts(m, prod, mul.input[1]!)).toEqual({ dims: [], values: [-1] });
      const split = m.nodes.find((n) => n.opType === 'Split')!;
      expect(constInts(m, prod, split.input[1]!)?.values).toEqual([64, 64, 64]);
    }
  });
});
