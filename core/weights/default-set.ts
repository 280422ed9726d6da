/**
 * The default set for the device it runs on (docs/models.md § First download): what a new user downloads before the
 * first spoken turn. Every bundle marked `default` in the manifest, and, where a hardware GPU runs the models, the
 * bundles marked `gpuDefault` too (the fp32 GPU voice and page search by meaning). Pure: the side panel passes the
 * offscreen document's adapter facts and the compute setting; sizes come from the manifest only.
 */
import type { GpuInfo } from '../protocol/status';
import { bundleTotalBytes } from './registry';
import type { ModelBundle } from './types';

/** What the plan needs to know about this computer, all known before any model is downloaded. */
export interface DeviceFacts {
  /** The WebGPU adapter the offscreen document would use (`status/get`), or null when there is none. */
  gpu: Pick<GpuInfo, 'available' | 'isFallbackAdapter' | 'architecture'> | null;
  /** Settings → "Run models on": 'wasm' keeps every model on the CPU. */
  computeBackend: 'auto' | 'wasm';
}

/**
 * A WebGPU adapter that is real hardware: not a fallback adapter and not SwiftShader (a software rasteriser that runs
 * on the CPU; some Chromium builds do not flag it as a fallback adapter).
 */
export function hardwareGpu(gpu: Pick<GpuInfo, 'available' | 'isFallbackAdapter' | 'architecture'> | null): boolean {
  return !!gpu && gpu.available && !gpu.isFallbackAdapter && !/swiftshader/i.test(gpu.architecture);
}

/**
 * The models will run on a hardware GPU. The GPU voice still has to pass its self-test on first load (docs/tts.md);
 * the set keeps the int8 voice, so a device that fails it speaks on the CPU with nothing more to download.
 */
export function gpuRunsModels(device: DeviceFacts): boolean {
  return device.computeBackend === 'auto' && hardwareGpu(device.gpu);
}

/** The bundles of the default set for this device, in manifest order. */
export function defaultSet(catalog: readonly ModelBundle[], device: DeviceFacts): ModelBundle[] {
  const gpu = gpuRunsModels(device);
  return catalog.filter((b) => b.default || (gpu && b.gpuDefault === true));
}

/** Exact bytes of the default set for this device: every file of every bundle in it, as the downloader fetches them. */
export function defaultSetBytes(catalog: readonly ModelBundle[], device: DeviceFacts): number {
  return defaultSet(catalog, device).reduce((s, b) => s + bundleTotalBytes(b), 0);
}
