/**
 * Counts the GPU buffers a device has alive (created and not yet destroyed) and their bytes, so long sessions can be
 * checked for leaks (the soak test samples it every 10 turns). It wraps the device's own `createBuffer` and each
 * buffer's `destroy`: one counter update per call, nothing per frame. onnxruntime-web destroys what it frees.
 */
import type { GpuBufferLike, GpuDeviceLike } from './webgpu-types';

export interface GpuBufferCount {
  count: number;
  bytes: number;
}

export function trackBuffers(device: GpuDeviceLike): () => GpuBufferCount {
  const live = { count: 0, bytes: 0 };
  const create = device.createBuffer.bind(device);
  (device as { createBuffer: GpuDeviceLike['createBuffer'] }).createBuffer = (descriptor) => {
    const buffer = create(descriptor);
    live.count += 1;
    live.bytes += descriptor.size;
    const destroy = buffer.destroy.bind(buffer);
    let destroyed = false;
    (buffer as { destroy: GpuBufferLike['destroy'] }).destroy = () => {
      if (!destroyed) {
        destroyed = true;
        live.count -= 1;
        live.bytes -= descriptor.size;
      }
      destroy();
    };
    return buffer;
  };
  return () => ({ ...live });
}
