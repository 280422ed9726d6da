/**
 * Where each speech session runs, and with which dtype. On a GPU, Moonshine's encoder (one pass over the clip)
 * belongs on WebGPU, but its decoder does not: one decoder step is a few small matrix products, so on WebGPU it costs
 * its dispatches (33.9 ms a step on an H200) while onnxruntime's WASM build with 4 threads takes 11.7 ms
 * (docs/benchmarks.md, "Speech recognition in the product"). The decoder's input from the encoder is a few hundred
 * kB, read back once per clip. Whisper stays on one device: its split has not been measured.
 */
import { asrDtypeMap, type AsrModelSpec } from '../registry';
import type { AsrDevice, AsrFamily } from './asr-runtime';

/** transformers.js takes one device, or one per session file name (`encoder_model`, `decoder_model_merged`). */
export type AsrSessionDevices = AsrDevice | Record<string, AsrDevice>;

export function asrSessionDevices(family: AsrFamily, device: AsrDevice, split = true): AsrSessionDevices {
  if (family === 'moonshine' && device === 'webgpu' && split) {
    return withEncoderAlias({ encoder_model: 'webgpu', decoder_model_merged: 'wasm' });
  }
  return device;
}

/**
 * transformers.js 4.3.2 names the encoder session `encoder_model` when it loads it but `model` when it lists a
 * model's files for the download progress (ModelRegistry.get_model_files). A per-session map without `model` makes
 * that listing fall back to the device's default dtype and probe the hub for a file that does not exist
 * (`encoder_model_quantized.onnx` on WASM), so every map carries both names.
 */
function withEncoderAlias<T>(map: Record<string, T>): Record<string, T> {
  return 'encoder_model' in map ? { model: map.encoder_model!, ...map } : map;
}

/** The `device` and `dtype` options AsrRuntime passes to transformers.js for this model. */
export function asrSessionOptions(
  spec: AsrModelSpec,
  device: AsrDevice,
  split = true,
): { device: AsrSessionDevices; dtype: Record<string, string> } {
  return { device: asrSessionDevices(spec.family, device, split), dtype: withEncoderAlias(asrDtypeMap(spec)) };
}
