// Where the speech sessions run (models/asr/session-devices.ts): on a GPU, Moonshine's decoder steps go to WASM, where
// the product-loop bench measured them 2.9× faster per step than on WebGPU (docs/benchmarks.md). And the options as a
// whole: the files transformers.js lists for them (what it probes the hub for, for download progress) must be
// exactly the pinned ones, on every device.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AutoConfig, ModelRegistry } from '@huggingface/transformers';
import { asrSessionDevices, asrSessionOptions } from '../../../models/asr/session-devices';
import { ASR_BUNDLES, ASR_MODELS } from '../../../models/registry';
import { startFixtureHub, type HubEnv } from './hub-env';

let hub: HubEnv;
beforeAll(async () => {
  hub = await startFixtureHub();
});
afterAll(async () => {
  await hub?.close();
});

describe('asrSessionDevices', () => {
  it('puts Moonshine’s encoder on WebGPU and its decoder on WASM when the models run on WebGPU', () => {
    expect(asrSessionDevices('moonshine', 'webgpu')).toMatchObject({ encoder_model: 'webgpu', decoder_model_merged: 'wasm' });
  });

  it('keeps one device otherwise: on the CPU, for Whisper, and when the split is turned off', () => {
    expect(asrSessionDevices('moonshine', 'wasm')).toBe('wasm');
    expect(asrSessionDevices('whisper', 'webgpu')).toBe('webgpu');
    expect(asrSessionDevices('moonshine', 'webgpu', false)).toBe('webgpu');
  });
});

describe('asrSessionOptions', () => {
  it.each([
    ['moonshine', 'webgpu', true],
    ['moonshine', 'webgpu', false],
    ['moonshine', 'wasm', true],
    ['whisper', 'webgpu', true],
    ['whisper', 'wasm', true],
  ] as const)('%s on %s (split %s): transformers.js lists only the pinned graphs', async (family, device, split) => {
    const spec = ASR_MODELS[family];
    const config = await AutoConfig.from_pretrained(spec.repo, { revision: spec.revision });
    const files = await ModelRegistry.get_model_files(spec.repo, { config, ...asrSessionOptions(spec, device, split) } as never);
    const graphs = files.filter((f: string) => f.endsWith('.onnx')).sort();
    const pinned = ASR_BUNDLES[family].files.map((f) => f.path).filter((p) => p.endsWith('.onnx'));
    expect(graphs).toEqual(pinned.sort());
  });
});
