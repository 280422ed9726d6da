/**
 * The slice of the WebGPU API the runtime uses, typed structurally: the project has no @webgpu/types dependency, and
 * tests pass stand-ins for navigator.gpu (Node has none).
 */
export interface GpuDeviceLostInfo {
  reason: 'destroyed' | 'unknown' | string;
  message: string;
}

export interface GpuBufferLike {
  mapAsync(mode: number): Promise<void>;
  getMappedRange(): ArrayBuffer;
  unmap(): void;
  destroy(): void;
}

export interface GpuDeviceLike {
  readonly lost: Promise<GpuDeviceLostInfo>;
  readonly features: { has(name: string): boolean };
  readonly queue: {
    writeBuffer(buffer: GpuBufferLike, offset: number, data: Uint8Array): void;
    submit(commands: unknown[]): void;
  };
  createBuffer(descriptor: { size: number; usage: number }): GpuBufferLike;
  createCommandEncoder(): {
    copyBufferToBuffer(src: GpuBufferLike, srcOffset: number, dst: GpuBufferLike, dstOffset: number, size: number): void;
    finish(): unknown;
  };
  destroy(): void;
}

export interface GpuAdapterLike {
  readonly features: { has(name: string): boolean };
  readonly limits: Record<string, number>;
  requestDevice(descriptor?: { requiredFeatures?: string[]; requiredLimits?: Record<string, number> }): Promise<GpuDeviceLike>;
}

export interface GpuLike {
  requestAdapter(options?: { powerPreference?: 'high-performance' | 'low-power' }): Promise<GpuAdapterLike | null>;
}

/** GPUBufferUsage / GPUMapMode bits (WebGPU spec constants). */
export const BUFFER_USAGE = { MAP_READ: 0x0001, COPY_SRC: 0x0004, COPY_DST: 0x0008, STORAGE: 0x0080 } as const;
export const MAP_MODE_READ = 0x0001;
