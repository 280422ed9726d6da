// Where the speech sessions run (models/asr/session-devices.ts): on a GPU, Moonshine's decoder steps go to WASM, where
// the product-loop bench measured them 2.3–2.9× faster per step than on WebGPU (docs/benchmarks.md).
import { describe, expect, it } from 'vitest';
import { asrSessionDevices } from '../../../models/asr/session-devices';

describe('asrSessionDevices', () => {
  it('puts Moonshine’s encoder on WebGPU and its decoder on WASM when the models run on WebGPU', () => {
    expect(asrSessionDevices('moonshine', 'webgpu')).toEqual({ encoder_model: 'webgpu', decoder_model_merged: 'wasm' });
  });

  it('keeps one device otherwise: on the CPU, for Whisper, and when the split is turned off', () => {
    expect(asrSessionDevices('moonshine', 'wasm')).toBe('wasm');
    expect(asrSessionDevices('whisper', 'webgpu')).toBe('webgpu');
    expect(asrSessionDevices('moonshine', 'webgpu', false)).toBe('webgpu');
  });
});
