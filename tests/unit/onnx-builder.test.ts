import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { modelBytes, node, tensor } from '../fixtures/onnx/builder';

describe('fixture ONNX builder', () => {
  it('builds a graph that real onnxruntime runs: Y = X * 2 + 1', async () => {
    const bytes = modelBytes({
      name: 'affine',
      inputs: [{ name: 'X', dtype: 'float32', dims: ['batch', 3] }],
      outputs: [{ name: 'Y', dtype: 'float32', dims: ['batch', 3] }],
      initializers: [tensor('two', 'float32', [], [2]), tensor('one', 'float32', [], [1])],
      nodes: [node('Mul', ['X', 'two'], ['X2']), node('Add', ['X2', 'one'], ['Y'])],
    });
    const session = await ort.InferenceSession.create(bytes);
    const out = await session.run({ X: new ort.Tensor('float32', new Float32Array([0, 1, -2, 3, 4, 5]), [2, 3]) });
    expect(Array.from(out.Y!.data as Float32Array)).toEqual([1, 3, -3, 7, 9, 11]);
    expect(out.Y!.dims).toEqual([2, 3]);
  });
});
