import type { AppStatus } from '../../core/protocol';

/** One line about the engine: starting, WebGPU adapter, or WASM fallback. */
export function engineSummary(status: AppStatus | null): { label: string; tone: 'ok' | 'warn' | 'busy' } {
  const offscreen = status?.offscreen;
  if (!offscreen) return { label: 'Starting the engine…', tone: 'busy' };
  if (offscreen.gpu.available) {
    const name = offscreen.gpu.description || `${offscreen.gpu.vendor} ${offscreen.gpu.architecture}`.trim();
    return { label: `WebGPU · ${name || 'GPU'}${offscreen.gpu.isFallbackAdapter ? ' (software)' : ''}`, tone: 'ok' };
  }
  return { label: 'No WebGPU: models will run on the CPU (slower)', tone: 'warn' };
}

export function EngineStatus({ status }: { status: AppStatus | null }) {
  const { label, tone } = engineSummary(status);
  return (
    <span class={`pill pill-${tone}`} data-testid="engine-status" title={label}>
      <span class="dot" aria-hidden="true" />
      {label}
    </span>
  );
}
