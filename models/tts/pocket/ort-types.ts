/**
 * The slice of the onnxruntime API the Pocket driver uses. The browser worker passes onnxruntime-web (the one shared
 * ORT instance); Node tests pass onnxruntime-node. Nothing here imports a runtime, so the loop is runtime-agnostic.
 */
export interface OrtTensorLike {
  readonly type: string;
  readonly dims: readonly number[];
  readonly data: unknown;
}

export interface OrtSessionLike {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Record<string, OrtTensorLike>): Promise<Record<string, OrtTensorLike>>;
  release?(): Promise<void>;
}

export interface OrtLike {
  Tensor: new (type: any, data: any, dims: readonly number[]) => OrtTensorLike; // eslint-disable-line @typescript-eslint/no-explicit-any -- onnxruntime-web and -node type these differently; both must fit
  InferenceSession: {
    create(model: Uint8Array, options?: any): Promise<OrtSessionLike>; // eslint-disable-line @typescript-eslint/no-explicit-any -- session options differ between onnxruntime-web and -node
  };
}

export type GraphName = 'text_conditioner' | 'flow_lm_main' | 'flow_lm_flow' | 'mimi_decoder' | 'mimi_encoder';
