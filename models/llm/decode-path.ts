/**
 * Which path the LLM's decode steps take (docs/llm-static-kv.md, "The product wiring"): on WebGPU, a recognised graph
 * decodes through its static-KV twin in a session with graph capture; everything else (WASM, a graph not recognised,
 * a session that cannot be created, a load-time check that differs) decodes through transformers.js on the plain
 * graph, and the status says why.
 */
import { rewriteForStaticKv } from './static-kv/rewrite';
import { HostStaticDecoder, type OrtClasses, type StaticDecoder } from './static-kv/static-decoder';
import { GpuStaticDecoder, epOnlyCaptureOptions } from './static-kv/gpu-static-decoder';
import type { GpuDeviceLike } from '../gpu/webgpu-types';

export type DecodeMode = 'captured' | 'static' | 'plain';
export interface DecodeStatus {
  decode: DecodeMode;
  /** Why the plain path is used (absent otherwise). */
  plainReason?: string;
  /**
   * The plain path's own decode steps disagreed with a full recompute on this device at load while the static path
   * agreed (docs/llm-static-kv.md, "Fallback"): replies decode only on the static path here.
   */
  plainFault?: string;
  /** Why a prompt's prefill computes the logits of every position, not only the last (models/llm/last-logits.ts). */
  allLogits?: string;
}

/**
 * 'auto': captured on WebGPU, plain elsewhere (the product). 'static': the static graph without capture on any
 * backend (tests and benches on CPU/WASM exercise the same path). 'plain': never the static graph.
 */
export type StaticKvMode = 'auto' | 'static' | 'plain';

export interface OpenStaticInput {
  mode: StaticKvMode;
  device: 'webgpu' | 'wasm' | 'cpu';
  ort: OrtClasses;
  /** The plain graph (a few hundred KB) and, only once it is recognised, its external data. */
  graph: () => Promise<Uint8Array>;
  externalData: () => Promise<{ path: string; data: Uint8Array }[]>;
  capacity: number;
  vocab: number;
  /** The GPU device ORT runs on (WebGPU only). */
  gpuDevice: () => Promise<GpuDeviceLike | null>;
}

export type OpenedDecoder = { decoder: StaticDecoder } | { decoder: null; reason: string };

const message = (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, 160);

export async function openStaticDecoder(o: OpenStaticInput): Promise<OpenedDecoder> {
  if (o.mode === 'plain') return { decoder: null, reason: 'static-KV decode is turned off' };
  const capture = o.mode === 'auto';
  if (capture && o.device !== 'webgpu')
    return { decoder: null, reason: `no graph capture on ${o.device === 'wasm' ? 'WASM' : 'the CPU'}` };
  let graph: Uint8Array;
  try {
    graph = await o.graph();
  } catch (e) {
    return { decoder: null, reason: `the graph could not be read: ${message(e)}` };
  }
  const rewrite = rewriteForStaticKv(graph, o.capacity);
  if (!rewrite.ok) return { decoder: null, reason: `graph not recognised: ${rewrite.reason}` };
  try {
    const externalData = await o.externalData();
    // Not spread: the capture flag is a getter that ORT must read itself (epOnlyCaptureOptions).
    const options = capture ? epOnlyCaptureOptions() : { executionProviders: [o.device] };
    options.externalData = externalData;
    const session = await o.ort.InferenceSession.create(rewrite.onnx, options);
    if (!capture) return { decoder: new HostStaticDecoder(o.ort, session, o.capacity) };
    const device = await o.gpuDevice();
    if (!device) {
      await session.release();
      return { decoder: null, reason: 'no GPU device from onnxruntime' };
    }
    return { decoder: new GpuStaticDecoder(o.ort, session, device, o.capacity, o.vocab) };
  } catch (e) {
    return { decoder: null, reason: `the ${capture ? 'capture' : 'static'} session could not be created: ${message(e)}` };
  }
}
