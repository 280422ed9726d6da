/**
 * One GPUDevice and one onnxruntime-web instance for every model in the worker: transformers.js (ASR, LLM) and the
 * project's own sessions (VAD, Pocket TTS) share them, so weights and kernels are not duplicated and stages do not
 * fight over two devices (ARCHITECTURE.md). No chrome.* here: this runs inside a dedicated worker.
 *
 * Init order (as the model worker wires it):
 *   import * as ort from 'onnxruntime-web/webgpu';   // the same specifier transformers.js imports: one ORT (ort-setup.ts)
 *   const rt = await initGpuRuntime({ ort, gpu: navigator.gpu, crossOriginIsolated, hardwareConcurrency });
 *   const tjs = await import('@huggingface/transformers');
 *   applyToTransformers(tjs.env, rt);                // re-asserts local wasm paths over transformers' CDN default
 *   load models with device: rt.backend ('webgpu' | 'wasm'); on rt.onDeviceLost(...) reload them with 'wasm'.
 */
import { TIMED_OUT, within } from '../../core/lifecycle/within';
import { trackBuffers, type GpuBufferCount } from './buffer-ledger';
import {
  BUFFER_USAGE,
  MAP_MODE_READ,
  type GpuAdapterLike,
  type GpuDeviceLike,
  type GpuDeviceLostInfo,
  type GpuLike,
} from './webgpu-types';

export type Backend = 'webgpu' | 'wasm';

/**
 * How long a WebGPU adapter and device may take to arrive: both promises "may not resolve for a long time"
 * (docs/gpu-browser.md, "When WebGPU does not answer"); past this the caller goes on without the GPU.
 */
export const WEBGPU_OPEN_TIMEOUT_MS = 15_000;

/** The parts of an ORT namespace (onnxruntime-web) the runtime configures. */
export interface OrtNamespace {
  env: {
    wasm: { wasmPaths?: unknown; numThreads?: number; proxy?: boolean };
    webgpu?: { device?: unknown; powerPreference?: string; adapter?: unknown };
  };
}

export interface GpuRuntimeOptions {
  ort: OrtNamespace;
  /** navigator.gpu in the worker; null/undefined → WASM only. */
  gpu?: GpuLike | null;
  /** Folder (URL prefix) holding ort-wasm-simd-threaded.asyncify.{mjs,wasm}; the extension copies them to /ort/. */
  wasmPaths?: string;
  /** globalThis.crossOriginIsolated: WASM threads need SharedArrayBuffer. */
  crossOriginIsolated?: boolean;
  hardwareConcurrency?: number;
  maxThreads?: number;
  /** How long the health check may take before WebGPU is declared unhealthy. */
  healthTimeoutMs?: number;
  /**
   * How long the adapter and the device may take to arrive. Both promises "may not resolve for a long time"
   * (docs/gpu-browser.md, "When WebGPU does not answer"); past this the models start on WASM instead of waiting.
   */
  openTimeoutMs?: number;
}

export interface GpuRuntime {
  readonly ort: OrtNamespace;
  /** Current backend; becomes 'wasm' after a device loss. */
  readonly backend: Backend;
  readonly device: GpuDeviceLike | null;
  readonly hasShaderF16: boolean;
  readonly numThreads: number;
  /** Why WebGPU is not used (null when it is). */
  readonly fallbackReason: string | null;
  /** GPU buffers alive on the device (0 without one); a leak shows as growth over a long session. */
  buffers(): GpuBufferCount;
  /** Fault injection (debug builds of a session only): lose the device as a driver reset would. */
  loseDevice(): void;
  /**
   * True when the device is lost, or is lost within `ms`: a model job that fails as the device goes reports the loss,
   * not a model error (its own failure can reach the worker before the device's \`lost\` promise settles).
   */
  lostWithin(ms: number): Promise<boolean>;
  /** Called once when the device is lost; callers re-create their sessions on WASM. Returns an unsubscribe. */
  onDeviceLost(listener: (info: GpuDeviceLostInfo) => void): () => void;
  /** Destroys the device on purpose (not reported as a loss). */
  dispose(): void;
}

export function threadCount(
  options: Pick<GpuRuntimeOptions, 'crossOriginIsolated' | 'hardwareConcurrency' | 'maxThreads'>,
): number {
  if (!options.crossOriginIsolated) return 1;
  const cores = options.hardwareConcurrency ?? 2;
  // Leave a core for the audio/UI threads; ORT gains little beyond 4 threads for these model sizes.
  return Math.max(1, Math.min(options.maxThreads ?? 4, cores - 1));
}

/** Round-trips 16 bytes through the queue: proves the device executes work, not just that it was created. */
async function deviceWorks(device: GpuDeviceLike, timeoutMs: number): Promise<boolean> {
  const pattern = Uint8Array.from({ length: 16 }, (_, i) => (i * 37 + 11) & 0xff);
  const check = (async () => {
    const src = device.createBuffer({ size: 16, usage: BUFFER_USAGE.COPY_DST | BUFFER_USAGE.COPY_SRC });
    const dst = device.createBuffer({ size: 16, usage: BUFFER_USAGE.COPY_DST | BUFFER_USAGE.MAP_READ });
    try {
      device.queue.writeBuffer(src, 0, pattern);
      const encoder = device.createCommandEncoder();
      encoder.copyBufferToBuffer(src, 0, dst, 0, 16);
      device.queue.submit([encoder.finish()]);
      await dst.mapAsync(MAP_MODE_READ);
      const got = new Uint8Array(dst.getMappedRange().slice(0));
      dst.unmap();
      return got.every((v, i) => v === pattern[i]);
    } finally {
      src.destroy();
      dst.destroy();
    }
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([check.catch(() => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The limits taken at the adapter's maximum: the buffers ORT allocates and what its compute kernels bind and launch. */
export const DEVICE_LIMITS = [
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxComputeWorkgroupStorageSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
  'maxComputeWorkgroupSizeZ',
  'maxComputeWorkgroupsPerDimension',
] as const;

async function openDevice(gpu: GpuLike, timeoutMs: number): Promise<{ device: GpuDeviceLike; f16: boolean } | string> {
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) return 'no WebGPU adapter';
  const f16 = adapter.features.has('shader-f16');
  // ORT asks for the adapter's maximum limits when it creates its own device; we create it, so we must. A device
  // gets the spec's defaults for every limit not asked for, and a compatibility-mode adapter's defaults are lower than
  // core's (4 storage buffers per stage): ORT's kernels that bind more fail there (docs/gpu-browser.md).
  const requiredLimits: Record<string, number> = {};
  for (const key of DEVICE_LIMITS) {
    const value = adapter.limits[key];
    if (typeof value === 'number') requiredLimits[key] = value;
  }
  const device = await adapter.requestDevice({ requiredFeatures: f16 ? ['shader-f16'] : [], requiredLimits });
  if (!(await deviceWorks(device, timeoutMs))) {
    device.destroy();
    return 'WebGPU health check failed';
  }
  return { device, f16 };
}

/**
 * Calls `onDevice` for every GPU device created in this worker from now on (the worker's own code creates none after
 * the runtime starts, so they are onnxruntime's). Patches GPUAdapter.prototype once; a no-op where WebGPU is absent.
 */
function watchNewDevices(onDevice: (d: GpuDeviceLike) => void): void {
  const proto = (globalThis as unknown as { GPUAdapter?: { prototype: Record<string | symbol, unknown> } }).GPUAdapter?.prototype;
  if (!proto) return;
  const mark = Symbol.for('sidetalk.watchNewDevices');
  const original =
    (proto[mark] as GpuAdapterLike['requestDevice'] | undefined) ?? (proto.requestDevice as GpuAdapterLike['requestDevice']);
  proto[mark] = original;
  proto.requestDevice = async function (this: GpuAdapterLike, descriptor?: Parameters<GpuAdapterLike['requestDevice']>[0]) {
    const d = await original.call(this, descriptor);
    onDevice(d);
    return d;
  };
}

export async function initGpuRuntime(options: GpuRuntimeOptions): Promise<GpuRuntime> {
  const { ort } = options;
  const numThreads = threadCount(options);
  ort.env.wasm.wasmPaths = options.wasmPaths ?? '/ort/';
  ort.env.wasm.numThreads = numThreads;
  ort.env.wasm.proxy = false; // already in a worker

  let backend: Backend = 'wasm';
  let device: GpuDeviceLike | null = null;
  let hasShaderF16 = false;
  let fallbackReason: string | null = 'WebGPU unavailable in this context';
  let countBuffers: () => GpuBufferCount = () => ({ count: 0, bytes: 0 });
  const listeners = new Set<(info: GpuDeviceLostInfo) => void>();
  let disposing = false;
  let lost = false;

  /** Makes `d` the device everything runs on: its buffers are counted and its loss moves the runtime to WASM. */
  const adopt = (d: GpuDeviceLike): void => {
    if (d === device) return;
    const previous = device;
    device = d;
    countBuffers = trackBuffers(d);
    void d.lost.then((info) => {
      if (disposing || d !== device) return; // a device we replaced (and destroyed) on purpose
      lost = true;
      backend = 'wasm';
      device = null;
      fallbackReason = `WebGPU device lost (${info.reason})`;
      for (const listener of [...listeners]) listener(info);
    });
    if (previous && previous !== d) previous.destroy();
  };

  if (options.gpu) {
    try {
      const openMs = options.openTimeoutMs ?? WEBGPU_OPEN_TIMEOUT_MS;
      const opened = await within(openDevice(options.gpu, options.healthTimeoutMs ?? 3000), openMs, (late) => {
        if (typeof late !== 'string') late.device.destroy();
      });
      if (opened === TIMED_OUT) fallbackReason = `WebGPU did not answer within ${Math.round(openMs / 1000)} s`;
      else if (typeof opened === 'string') fallbackReason = opened;
      else {
        hasShaderF16 = opened.f16;
        adopt(opened.device);
        backend = 'webgpu';
        fallbackReason = null;
        if (ort.env.webgpu) {
          ort.env.webgpu.device = opened.device;
          // onnxruntime-web's native WebGPU EP ignores a preset device and creates its own from `env.webgpu.adapter`
          // (or a fresh adapter): hand it an adapter whose requestDevice reports that device back, so the device the
          // models really run on is the one whose buffers are counted and whose loss is handled (and ours is freed).
          const adapter = await within(options.gpu.requestAdapter({ powerPreference: 'high-performance' }), openMs);
          if (adapter === TIMED_OUT) {
            // onnxruntime would ask for an adapter of its own, as likely to hang: the models run on WASM instead.
            // (The device's loss is not reported: its handler ignores a device that is no longer the current one.)
            device = null;
            opened.device.destroy();
            ort.env.webgpu.device = undefined;
            countBuffers = () => ({ count: 0, bytes: 0 });
            hasShaderF16 = false;
            backend = 'wasm';
            fallbackReason = `WebGPU did not answer within ${Math.round(openMs / 1000)} s`;
          } else if (adapter) {
            const request = adapter.requestDevice.bind(adapter);
            (adapter as { requestDevice: typeof adapter.requestDevice }).requestDevice = async (descriptor) => {
              const d = await request(descriptor);
              adopt(d);
              return d;
            };
            ort.env.webgpu.adapter = adapter;
          }
          // Whatever adapter it ends up using, a device created later in this worker is onnxruntime's.
          if (backend === 'webgpu') watchNewDevices(adopt);
        }
      }
    } catch (error) {
      fallbackReason = `WebGPU init failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  const runtime: GpuRuntime = {
    ort,
    get backend() {
      return backend;
    },
    get device() {
      return device;
    },
    hasShaderF16,
    numThreads,
    get fallbackReason() {
      return fallbackReason;
    },
    buffers: () => countBuffers(),
    loseDevice() {
      device?.destroy(); // not `disposing`: the lost handler treats it like a real loss
    },
    lostWithin(ms) {
      const d = device;
      if (lost || !d) return Promise.resolve(lost);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(lost), ms);
        void d.lost.then(() => {
          clearTimeout(timer);
          resolve(!disposing);
        });
      });
    },
    onDeviceLost(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      disposing = true;
      device?.destroy();
    },
  };
  return runtime;
}

/** transformers.js copies ORT's env at import and points WASM at a CDN when unset: re-assert our settings. */
export function applyToTransformers(
  tjsEnv: { backends: { onnx: { wasm?: { wasmPaths?: unknown; numThreads?: number; proxy?: boolean } } } },
  runtime: GpuRuntime,
): void {
  const wasm = tjsEnv.backends.onnx.wasm;
  if (!wasm) return;
  wasm.wasmPaths = runtime.ort.env.wasm.wasmPaths;
  wasm.numThreads = runtime.numThreads;
  wasm.proxy = false;
}
