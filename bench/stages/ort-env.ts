/**
 * Loads onnxruntime-web's browser build (`ort.webgpu.mjs`: the native WebGPU EP + the WASM EP, the build
 * transformers.js imports) in Node, with the shims described in docs/benchmarks.md:
 * 1. `navigator.gpu` from dawn.node (npm `webgpu`), keeping a reference to the GPU object for the process lifetime;
 * 2. `fetch`/`URL.createObjectURL` for `file:` URLs (the threaded WASM build loads its worker script that way);
 * 3. `GPUQueue.writeBuffer` copies SharedArrayBuffer-backed data (Node 20 crashes otherwise; harmless on 22);
 * 4. on Node < 22, `--liftoff-only` before ORT's wasm compiles (a 28–39 s first-run stall otherwise).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import type * as OrtNs from 'onnxruntime-common';

export type Ort = typeof OrtNs & {
  env: typeof OrtNs.env & {
    wasm: { numThreads?: number; simd?: boolean; proxy?: boolean };
    webgpu: Record<string, unknown>;
    logLevel?: string;
  };
};

export interface OrtEnvOptions {
  /** Directory holding ort.webgpu.mjs and ort-wasm-simd-threaded.asyncify.{mjs,wasm}. */
  distDir: string;
  webgpu: boolean;
  /** Path of the `webgpu` package's index.js (dawn.node); required when webgpu is true. */
  webgpuModule?: string;
  numThreads: number;
  dawnToggles?: string[];
  /**
   * V8 `--liftoff-only` (baseline wasm compiler only). Required on Node < 22 with WebGPU (testing.md §10.4); also
   * keeps smoke runs fast on small machines, where optimising ORT's 27 MB wasm in the background takes minutes and
   * delays process exit. Off for timing runs on Node 22 (optimised wasm is what the WASM EP numbers should use).
   */
  liftoffOnly?: boolean;
}

export interface AdapterSummary {
  vendor?: string;
  architecture?: string;
  device?: string;
  description?: string;
  features: string[];
  isFallbackAdapter?: boolean;
  maxStorageBufferBindingSize?: number;
}

export interface OrtEnv {
  ort: Ort;
  adapter: AdapterSummary | null;
  version: string;
}

function installFileFetch(): void {
  const g = globalThis as unknown as { fetch: typeof fetch; __sidetalkFetchShim?: boolean };
  if (g.__sidetalkFetchShim) return;
  g.__sidetalkFetchShim = true;
  const realFetch = g.fetch.bind(globalThis);
  g.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith('file:')) return realFetch(input, init);
    const bytes = readFileSync(fileURLToPath(url));
    const type = url.endsWith('.wasm') ? 'application/wasm' : 'text/javascript';
    const res = new Response(bytes, { headers: { 'content-type': type } });
    // Threaded builds wrap the worker script in a Blob and import a blob: URL; hand the file URL through instead.
    Object.defineProperty(res, 'blob', { value: async () => ({ __fileUrl: url, type, size: bytes.length }) });
    return res;
  }) as typeof fetch;
  const U = URL as unknown as { createObjectURL: (b: unknown) => string; revokeObjectURL: (u: string) => void };
  const realCreate = U.createObjectURL?.bind(URL);
  const realRevoke = U.revokeObjectURL?.bind(URL);
  U.createObjectURL = (b: unknown) => (b as { __fileUrl?: string }).__fileUrl ?? realCreate!(b);
  U.revokeObjectURL = (u: string) => {
    if (!u.startsWith('file:')) realRevoke?.(u);
  };
}

function installWriteBufferCopy(): void {
  // Dawn's GPUQueue.writeBuffer overloads are not typed in Node: the shim forwards whatever it is given.
  type WriteBuffer = (
    this: unknown,
    buffer: unknown,
    offset: number,
    data: ArrayBufferView | ArrayBufferLike,
    dataOffset?: number,
    size?: number,
  ) => unknown;
  const Q = (globalThis as unknown as { GPUQueue?: { prototype: { writeBuffer: WriteBuffer; __copyShim?: boolean } } }).GPUQueue;
  if (!Q || Q.prototype.__copyShim) return;
  const orig = Q.prototype.writeBuffer;
  Q.prototype.__copyShim = true;
  Q.prototype.writeBuffer = function (
    this: unknown,
    buffer: unknown,
    offset: number,
    data: ArrayBufferView | ArrayBufferLike,
    dataOffset?: number,
    size?: number,
  ) {
    if (typeof SharedArrayBuffer !== 'undefined') {
      if (ArrayBuffer.isView(data) && data.buffer instanceof SharedArrayBuffer) {
        const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
        const el = (data as unknown as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1;
        const start = (dataOffset ?? 0) * el;
        const len = size !== undefined ? size * el : bytes.byteLength - start;
        return orig.call(this, buffer, offset, bytes.slice(start, start + len));
      }
      if (data instanceof SharedArrayBuffer) {
        const start = dataOffset ?? 0;
        const len = size ?? data.byteLength - start;
        return orig.call(this, buffer, offset, new Uint8Array(data, start, len).slice());
      }
    }
    return orig.call(this, buffer, offset, data, dataOffset, size);
  };
}

let cached: OrtEnv | null = null;

export async function loadOrt(opts: OrtEnvOptions): Promise<OrtEnv> {
  if (cached) return cached;
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  let adapter: AdapterSummary | null = null;
  if (opts.liftoffOnly || (opts.webgpu && nodeMajor < 22)) v8.setFlagsFromString('--liftoff-only');
  if (opts.webgpu) {
    if (!opts.webgpuModule) throw new Error('webgpu needs --webgpu-module (path of the `webgpu` package index.js)');
    const req = createRequire(import.meta.url);
    const { create, globals } = req(opts.webgpuModule) as { create: (t: string[]) => unknown; globals: Record<string, unknown> };
    Object.assign(globalThis, globals);
    const gpu = create(opts.dawnToggles ?? []) as { requestAdapter: () => Promise<unknown> };
    (globalThis as unknown as { __sidetalkGpu: unknown }).__sidetalkGpu = gpu; // keep alive (testing.md §10.1)
    if (typeof (globalThis as { navigator?: unknown }).navigator === 'undefined') {
      (globalThis as unknown as { navigator: unknown }).navigator = { gpu };
    } else {
      Object.defineProperty(globalThis.navigator, 'gpu', { value: gpu, configurable: true });
    }
    installWriteBufferCopy();
    const a = (await gpu.requestAdapter()) as {
      info?: Record<string, unknown>;
      features: Set<string>;
      limits: Record<string, number>;
      isFallbackAdapter?: boolean;
    } | null;
    if (!a) throw new Error('dawn.node: no WebGPU adapter');
    const info = a.info ?? {};
    adapter = {
      vendor: info.vendor as string,
      architecture: info.architecture as string,
      device: info.device as string,
      description: info.description as string,
      features: [...a.features].sort(),
      isFallbackAdapter: (info.isFallbackAdapter as boolean | undefined) ?? a.isFallbackAdapter,
      maxStorageBufferBindingSize: a.limits.maxStorageBufferBindingSize,
    };
  }
  installFileFetch();
  const url = pathToFileURL(`${opts.distDir.replace(/\/$/, '')}/ort.webgpu.mjs`).href;
  const ort = (await import(/* @vite-ignore */ url)) as Ort;
  ort.env.wasm.numThreads = opts.numThreads;
  ort.env.logLevel = 'error';
  const version = (ort.env as unknown as { versions?: { web?: string } }).versions?.web ?? 'unknown';
  cached = { ort, adapter, version };
  return cached;
}

/** Drop the dawn.node reference so the process can exit (testing.md §10.1). */
export function releaseGpu(): void {
  delete (globalThis as unknown as { __sidetalkGpu?: unknown }).__sidetalkGpu;
}
