/**
 * The one onnxruntime-web instance of the model worker. transformers.js (web build) imports the same specifier,
 * `onnxruntime-web/webgpu`, so the bundler resolves both to one module: one ORT, one wasm, one GPU device.
 * (Registering it under Symbol.for('onnxruntime') instead makes transformers.js 4.3.2 treat it as a foreign runtime
 * and list no devices at all: "Unsupported device: webgpu. Should be one of: .")
 */
import * as ort from 'onnxruntime-web/webgpu';
import { serializeRuns } from './run-lane';

// Before any session exists: transformers.js, Smart Turn and the detector all run through this instance.
serializeRuns(ort.InferenceSession as never);

export const sharedOrtInstance = ort;
