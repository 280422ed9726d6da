/**
 * Where each speech session runs. On a GPU, Moonshine's encoder (one pass over the clip) belongs on WebGPU, but its
 * decoder does not: one decoder step is a few small matrix products, so on WebGPU it costs its dispatches (37–57 ms a
 * step on an H200) while onnxruntime's WASM build with 4 threads takes about 11 ms (docs/benchmarks.md, "Speech
 * recognition in the product"). The decoder's input from the encoder is a few hundred kB, read back once per clip.
 * Whisper stays on one device: its split has not been measured.
 */
import type { AsrDevice, AsrFamily } from './asr-runtime';

/** transformers.js takes one device, or one per session file name (`encoder_model`, `decoder_model_merged`). */
export type AsrSessionDevices = AsrDevice | Record<'encoder_model' | 'decoder_model_merged', AsrDevice>;

export function asrSessionDevices(family: AsrFamily, device: AsrDevice, split = true): AsrSessionDevices {
  if (family === 'moonshine' && device === 'webgpu' && split) return { encoder_model: 'webgpu', decoder_model_merged: 'wasm' };
  return device;
}
