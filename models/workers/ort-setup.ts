/**
 * Imported first by the speech worker so that the one onnxruntime-web instance is registered before
 * transformers.js loads and picks it up (globalThis[Symbol.for('onnxruntime')]).
 */
import * as ort from 'onnxruntime-web/webgpu';
import { shareOrt } from '../gpu/runtime';

export const sharedOrtInstance = shareOrt(ort);
