import { useMemo, useRef } from 'preact/hooks';
import type { AppStatus, GpuInfo, Settings } from '../../core/protocol';
import type { DeviceFacts } from '../../core/weights';

/**
 * What the default set depends on (core/weights/default-set.ts): the offscreen document's WebGPU adapter and the
 * compute setting; null until both are known. The adapter is kept once seen, so a status without the offscreen
 * document (it restarts) does not shrink the plan in the middle of a download.
 */
export function useDeviceFacts(status: AppStatus | null, settings: Settings | null): DeviceFacts | null {
  const gpu = useRef<GpuInfo | null>(null);
  if (status?.offscreen) gpu.current = status.offscreen.gpu;
  const known = gpu.current;
  const computeBackend = settings?.computeBackend ?? null;
  // One object while the facts stay the same, so the plans built from it are not rebuilt on every render.
  return useMemo(() => (known && computeBackend ? { gpu: known, computeBackend } : null), [known, computeBackend]);
}
