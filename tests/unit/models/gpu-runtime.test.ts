// models/gpu/runtime: backend choice, WASM settings, device-loss fallback and the shared-ORT guard. Node has no
// WebGPU, so navigator.gpu is replaced by a small in-memory stand-in whose queue really copies bytes (or corrupts
// them, to fail the health check); ORT is a plain namespace object carrying the env the runtime configures.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { initGpuRuntime, threadCount, type OrtNamespace } from '../../../models/gpu/runtime';
import type { GpuDeviceLostInfo, GpuLike } from '../../../models/gpu/webgpu-types';

function fakeOrt(): OrtNamespace {
  return { env: { wasm: {}, webgpu: {} } };
}

function fakeGpu(opts: { corrupt?: boolean; f16?: boolean } = {}) {
  let loseDevice!: (info: GpuDeviceLostInfo) => void;
  const lost = new Promise<GpuDeviceLostInfo>((resolve) => (loseDevice = resolve));
  const device = {
    lost,
    destroyed: false,
    features: new Set(opts.f16 ? ['shader-f16'] : []),
    queue: {
      writeBuffer(buffer: { bytes: Uint8Array }, offset: number, data: Uint8Array) {
        buffer.bytes.set(data, offset);
      },
      submit(commands: Array<() => void>) {
        for (const run of commands) run();
      },
    },
    createBuffer({ size }: { size: number }) {
      const bytes = new Uint8Array(size);
      return { bytes, mapAsync: async () => {}, getMappedRange: () => bytes.buffer, unmap() {}, destroy() {} };
    },
    createCommandEncoder() {
      const ops: Array<() => void> = [];
      return {
        copyBufferToBuffer(src: { bytes: Uint8Array }, so: number, dst: { bytes: Uint8Array }, d: number, n: number) {
          ops.push(() =>
            dst.bytes.set(
              src.bytes.subarray(so, so + n).map((v) => (opts.corrupt ? v ^ 1 : v)),
              d,
            ),
          );
        },
        finish: () => () => ops.forEach((op) => op()),
      };
    },
    destroy() {
      this.destroyed = true;
    },
  };
  const requested: Array<Record<string, unknown> | undefined> = [];
  const gpu = {
    async requestAdapter() {
      return {
        features: device.features,
        limits: { maxBufferSize: 1 << 30, maxStorageBufferBindingSize: 1 << 29 },
        async requestDevice(d?: Record<string, unknown>) {
          requested.push(d);
          return device;
        },
      };
    },
  };
  return { gpu: gpu as unknown as GpuLike, device, requested, loseDevice };
}

describe('gpu runtime', () => {
  it('uses WASM with the extension wasm folder when there is no WebGPU', async () => {
    const ort = fakeOrt();
    const rt = await initGpuRuntime({ ort, gpu: null, crossOriginIsolated: false, hardwareConcurrency: 8 });
    expect(rt.backend).toBe('wasm');
    expect(rt.fallbackReason).toMatch(/unavailable/);
    expect(ort.env.wasm).toEqual({ wasmPaths: '/ort/', numThreads: 1, proxy: false });
  });

  it('uses threads only when cross-origin isolated, leaving a core free and capping at 4', () => {
    expect(threadCount({ crossOriginIsolated: false, hardwareConcurrency: 16 })).toBe(1);
    expect(threadCount({ crossOriginIsolated: true, hardwareConcurrency: 2 })).toBe(1);
    expect(threadCount({ crossOriginIsolated: true, hardwareConcurrency: 4 })).toBe(3);
    expect(threadCount({ crossOriginIsolated: true, hardwareConcurrency: 16 })).toBe(4);
  });

  it('hands a healthy device to ORT, with the adapter limits and shader-f16 when offered', async () => {
    const ort = fakeOrt();
    const { gpu, device, requested } = fakeGpu({ f16: true });
    const rt = await initGpuRuntime({ ort, gpu });
    expect(rt.backend).toBe('webgpu');
    expect(rt.hasShaderF16).toBe(true);
    expect(ort.env.webgpu!.device).toBe(device);
    expect(requested[0]).toEqual({
      requiredFeatures: ['shader-f16'],
      requiredLimits: { maxBufferSize: 1 << 30, maxStorageBufferBindingSize: 1 << 29 },
    });
  });

  it('asks a compatibility-mode adapter for its own storage-buffer and workgroup maxima, not the lower defaults', async () => {
    const compat = {
      maxStorageBuffersPerShaderStage: 16,
      maxComputeInvocationsPerWorkgroup: 1024,
      maxComputeWorkgroupSizeX: 1024,
    };
    const { gpu, requested } = fakeGpu({});
    const adapterOf = gpu.requestAdapter.bind(gpu);
    (gpu as { requestAdapter: GpuLike['requestAdapter'] }).requestAdapter = async () => {
      const a = (await adapterOf())!;
      return { ...a, limits: { ...a.limits, ...compat }, requestDevice: a.requestDevice };
    };
    const rt = await initGpuRuntime({ ort: fakeOrt(), gpu });
    expect(rt.backend).toBe('webgpu');
    expect(requested[0]?.requiredLimits).toEqual({ maxBufferSize: 1 << 30, maxStorageBufferBindingSize: 1 << 29, ...compat });
  });

  it('falls back to WASM when the device fails the health check', async () => {
    const { gpu, device } = fakeGpu({ corrupt: true });
    const rt = await initGpuRuntime({ ort: fakeOrt(), gpu });
    expect(rt.backend).toBe('wasm');
    expect(rt.fallbackReason).toMatch(/health check/);
    expect(device.destroyed).toBe(true);
  });

  it('reports a device loss once to every listener and switches to WASM', async () => {
    const { gpu, loseDevice } = fakeGpu();
    const rt = await initGpuRuntime({ ort: fakeOrt(), gpu });
    const seen: string[] = [];
    rt.onDeviceLost((info) => seen.push(`a:${info.reason}`));
    const off = rt.onDeviceLost(() => seen.push('b'));
    off();
    loseDevice({ reason: 'unknown', message: 'DXGI_ERROR_DEVICE_HUNG' });
    await new Promise((r) => setTimeout(r, 0));
    expect(seen).toEqual(['a:unknown']);
    expect(rt.backend).toBe('wasm');
    expect(rt.device).toBeNull();
  });

  it('says whether a failing job met a device loss: within the wait, already lost, or not at all', async () => {
    const healthy = await initGpuRuntime({ ort: fakeOrt(), gpu: fakeGpu().gpu });
    expect(await healthy.lostWithin(20)).toBe(false);
    const { gpu, loseDevice } = fakeGpu();
    const rt = await initGpuRuntime({ ort: fakeOrt(), gpu });
    const asked = rt.lostWithin(1000);
    setTimeout(() => loseDevice({ reason: 'destroyed', message: 'destroyed' }), 10);
    expect(await asked).toBe(true);
    expect(await rt.lostWithin(0)).toBe(true);
    const wasm = await initGpuRuntime({ ort: fakeOrt(), gpu: null });
    expect(await wasm.lostWithin(0)).toBe(false);
  });

  it('adopts the device onnxruntime creates from env.webgpu.adapter: counts its buffers, handles its loss, frees ours', async () => {
    const ours = fakeGpu();
    const orts = fakeGpu();
    let calls = 0;
    const gpu = { requestAdapter: () => (calls++ === 0 ? ours.gpu : orts.gpu).requestAdapter() } as unknown as GpuLike;
    const ort = fakeOrt();
    const rt = await initGpuRuntime({ ort, gpu });
    expect(rt.device).toBe(ours.device);
    // What onnxruntime-web's native EP does at its first WebGPU session.
    const adapter = ort.env.webgpu!.adapter as { requestDevice(d?: unknown): Promise<unknown> };
    const created = (await adapter.requestDevice({})) as typeof orts.device;
    expect(created).toBe(orts.device);
    expect(rt.device).toBe(orts.device);
    expect(ours.device.destroyed).toBe(true);
    const b1 = created.createBuffer({ size: 1000 });
    created.createBuffer({ size: 24 });
    expect(rt.buffers()).toEqual({ count: 2, bytes: 1024 });
    b1.destroy();
    b1.destroy(); // twice counts once
    expect(rt.buffers()).toEqual({ count: 1, bytes: 24 });
    const seen: string[] = [];
    rt.onDeviceLost((info) => seen.push(info.reason));
    ours.loseDevice({ reason: 'destroyed', message: 'replaced' });
    await new Promise((r) => setTimeout(r, 0));
    expect([seen, rt.backend]).toEqual([[], 'webgpu']);
    orts.loseDevice({ reason: 'unknown', message: 'reset' });
    await new Promise((r) => setTimeout(r, 0));
    expect([seen, rt.backend]).toEqual([['unknown'], 'wasm']);
  });
  describe('a GPU that does not answer (its promises "may not resolve for a long time")', () => {
    afterEach(() => vi.useRealTimers());
    const never = <T>() => new Promise<T>(() => undefined);

    it('starts on WASM, saying why, when no adapter arrives within openTimeoutMs', async () => {
      vi.useFakeTimers();
      const gpu = { requestAdapter: () => never() } as unknown as GpuLike;
      const ort = fakeOrt();
      const started = initGpuRuntime({ ort, gpu, openTimeoutMs: 10_000 });
      await vi.advanceTimersByTimeAsync(10_001);
      const rt = await started;
      expect([rt.backend, rt.fallbackReason, rt.device]).toEqual(['wasm', 'WebGPU did not answer within 10 s', null]);
      expect(ort.env.webgpu!.device).toBeUndefined();
    });

    it('starts on WASM when the device never arrives, and frees one that arrives after the wait', async () => {
      vi.useFakeTimers();
      const { gpu, device } = fakeGpu();
      let deliver!: (d: typeof device) => void;
      const adapterOf = gpu.requestAdapter.bind(gpu);
      (gpu as { requestAdapter: GpuLike['requestAdapter'] }).requestAdapter = async () => {
        const a = (await adapterOf())!;
        return { ...a, requestDevice: () => new Promise<typeof device>((resolve) => (deliver = resolve)) } as unknown as typeof a;
      };
      const started = initGpuRuntime({ ort: fakeOrt(), gpu, openTimeoutMs: 5_000 });
      await vi.advanceTimersByTimeAsync(5_001);
      const rt = await started;
      expect([rt.backend, rt.fallbackReason]).toEqual(['wasm', 'WebGPU did not answer within 5 s']);
      deliver(device);
      await vi.advanceTimersByTimeAsync(3_001); // the late device's own health check
      expect(device.destroyed).toBe(true);
      expect(rt.backend).toBe('wasm');
    });

    it("starts on WASM when the adapter for onnxruntime's own device never arrives, freeing the device it had", async () => {
      vi.useFakeTimers();
      const ours = fakeGpu();
      let calls = 0;
      const gpu = { requestAdapter: () => (calls++ === 0 ? ours.gpu.requestAdapter() : never()) } as unknown as GpuLike;
      const ort = fakeOrt();
      const started = initGpuRuntime({ ort, gpu, openTimeoutMs: 5_000 });
      await vi.advanceTimersByTimeAsync(5_001);
      const rt = await started;
      expect([rt.backend, rt.fallbackReason, rt.device, rt.hasShaderF16]).toEqual([
        'wasm',
        'WebGPU did not answer within 5 s',
        null,
        false,
      ]);
      expect(ours.device.destroyed).toBe(true);
      expect(ort.env.webgpu!.device).toBeUndefined();
      const seen: string[] = [];
      rt.onDeviceLost((info) => seen.push(info.reason));
      ours.loseDevice({ reason: 'destroyed', message: 'freed' });
      await vi.advanceTimersByTimeAsync(0);
      expect(seen).toEqual([]); // freeing it on purpose is not a loss
    });
  });
});
