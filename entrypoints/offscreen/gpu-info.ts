import type { GpuInfo } from '../../core/protocol';
import { TIMED_OUT, within } from '../../core/lifecycle/within';
import { WEBGPU_OPEN_TIMEOUT_MS } from '../../models/gpu/runtime';

/** The status waits on this answer: an adapter request that never settles must not leave it unanswered. */
const ADAPTER_WAIT_MS = WEBGPU_OPEN_TIMEOUT_MS;

/** Describes the WebGPU adapter this document would use; retried because the first request can race startup. */
export async function readGpuInfo(attempts = 3): Promise<GpuInfo> {
  const none = (error: string): GpuInfo => ({
    available: false,
    vendor: '',
    architecture: '',
    description: '',
    isFallbackAdapter: false,
    shaderF16: false,
    error,
  });
  if (!('gpu' in navigator) || !navigator.gpu) return none('This browser has no WebGPU.');
  let lastError = 'No WebGPU adapter is available.';
  for (let i = 0; i < attempts; i++) {
    try {
      const adapter = await within(navigator.gpu.requestAdapter({ powerPreference: 'high-performance' }), ADAPTER_WAIT_MS);
      if (adapter === TIMED_OUT) return none(`WebGPU did not answer within ${ADAPTER_WAIT_MS / 1000} s.`);
      if (adapter) {
        const info = adapter.info;
        return {
          available: true,
          vendor: info.vendor,
          architecture: info.architecture,
          description: info.description,
          isFallbackAdapter: Boolean((info as GPUAdapterInfo & { isFallbackAdapter?: boolean }).isFallbackAdapter),
          shaderF16: adapter.features.has('shader-f16'),
        };
      }
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, 50 * (i + 1)));
  }
  return none(lastError);
}
