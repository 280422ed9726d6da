/** Shared test plumbing: onnxruntime-node as the injected ORT, CPU provider for the 'wasm' backend. */
import * as ortNode from 'onnxruntime-node';
import { PocketModel, type LoadOptions } from '../../../models/tts/pocket/model';
import type { OrtLike } from '../../../models/tts/pocket/ort-types';
import { buildPocketBundle, type FixtureOptions } from '../../fixtures/pocket/generate';

export const ort = ortNode as unknown as OrtLike;

export const NODE_SESSION_OPTIONS = {
  wasm: { executionProviders: ['cpu'], intraOpNumThreads: 1 },
  webgpu: { executionProviders: ['cpu'], intraOpNumThreads: 1 },
};

export async function loadFixtureModel(fixture: FixtureOptions = {}, extra: Partial<LoadOptions> = {}): Promise<PocketModel> {
  return PocketModel.load({ ort, files: buildPocketBundle(fixture), sessionOptions: NODE_SESSION_OPTIONS, ...extra });
}

export { seededRandom } from '../../fixtures/seeded-random';
