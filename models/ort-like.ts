/**
 * The parts of an onnxruntime namespace the small CPU-side runners use (Smart Turn; the test reference for Silero VAD).
 * onnxruntime-node and onnxruntime-web both satisfy it, so a runner is tested in Node on the same model file it ships.
 */

/** The parts of a Tensor these runners read. */
export interface OrtTensorLike {
  readonly data: unknown;
  readonly dims: readonly number[];
}

export interface OrtLike {
  Tensor: new (type: 'float32' | 'int64', data: Float32Array | BigInt64Array, dims: readonly number[]) => OrtTensorLike;
  InferenceSession: {
    create(model: Uint8Array, options?: Record<string, unknown>): Promise<OrtSessionLike>;
  };
}

export interface OrtSessionLike {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Record<string, OrtTensorLike>): Promise<Record<string, OrtTensorLike>>;
  release?(): Promise<void>;
}
