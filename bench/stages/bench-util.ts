/**
 * What every stage bench shares: the result record, session creation (timed, with the graph's size), input-tensor
 * helpers and seeded input noise. Split out of stage-bench.ts so the detector, Whisper and graph-capture benches
 * (their own files) build sessions and results exactly the same way as the LLM/TTS/Moonshine ones.
 */
import type * as OrtNs from 'onnxruntime-common';
import { now, round, type Stats, type Validity } from './measure';
import { toFloat16, type Act, type GraphFiles } from './onnx-graph';
import type { Ort } from './ort-env';

export type Tensor = OrtNs.Tensor;
export type Session = OrtNs.InferenceSession;
export type Feeds = Record<string, Tensor>;

export type Ep = 'webgpu' | 'wasm';

export interface GraphInfo {
  name: string;
  nodes: number;
  weightBytes: number;
  buildMs: number;
  sessionMs: number;
  opCounts?: Record<string, number>;
}

export interface StageResult {
  stage: 'overhead' | 'llm' | 'tts' | 'asr' | 'detector' | 'capture' | 'turn';
  ep: Ep;
  dtype: string;
  variant?: string;
  threads: number;
  valid: boolean;
  graphs: GraphInfo[];
  metrics: Record<string, number | Stats | Record<string, unknown> | unknown[] | string | boolean | null>;
  validity: Validity[];
  /**
   * Variants of the job that were not run, each with why (e.g. graph capture "n/a on wasm"). They are not passes:
   * the report lists them apart from the validity count, and `valid` covers only what did run.
   */
  skipped?: string[];
  error?: string;
}

export interface BenchContext {
  ort: Ort;
  ep: Ep;
  threads: number;
  log: (msg: string) => void;
}

export function sessionOptions(ctx: BenchContext, extra: Record<string, unknown> = {}): OrtNs.InferenceSession.SessionOptions {
  const opts = {
    executionProviders: [ctx.ep === 'webgpu' ? { name: 'webgpu' } : { name: 'wasm' }],
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
  };
  // Copied as property descriptors, not spread: an option may be a getter (capture-bench.ts) that ORT must call.
  return Object.defineProperties(opts, Object.getOwnPropertyDescriptors(extra)) as OrtNs.InferenceSession.SessionOptions;
}

export async function createSession(
  ctx: BenchContext,
  files: GraphFiles,
  buildMs: number,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<{ session: Session; info: GraphInfo }> {
  const t0 = now();
  const opts = sessionOptions(ctx, extra);
  if (files.external) (opts as Record<string, unknown>).externalData = [{ path: files.external.path, data: files.external.data }];
  const session = await ctx.ort.InferenceSession.create(files.onnx, opts);
  const sessionMs = now() - t0;
  ctx.log(
    `  ${name}: ${files.nodes} nodes, ${(files.weights.bytes / 1e6).toFixed(1)} MB, build ${buildMs.toFixed(0)} ms, session ${sessionMs.toFixed(0)} ms`,
  );
  return {
    session,
    info: {
      name,
      nodes: files.nodes,
      weightBytes: files.weights.bytes,
      buildMs: round(buildMs, 1),
      sessionMs: round(sessionMs, 1),
      opCounts: files.opCounts,
    },
  };
}

export function timed<T>(build: () => T): { value: T; ms: number } {
  const t0 = now();
  const value = build();
  return { value, ms: now() - t0 };
}

export function floatTensor(ort: Ort, act: Act, dims: number[], fill: (i: number) => number): Tensor {
  const n = dims.reduce((a, b) => a * b, 1);
  const f = new Float32Array(n);
  for (let i = 0; i < n; i++) f[i] = fill(i);
  return act === 'float16' ? new ort.Tensor('float16', toFloat16(f), dims) : new ort.Tensor('float32', f, dims);
}

export function i64(ort: Ort, values: number[], dims: number[]): Tensor {
  return new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims);
}

export function disposeAll(ts: Iterable<Tensor>): void {
  for (const t of ts) if ((t as { location?: string }).location === 'gpu-buffer') t.dispose();
}

/** Deterministic pseudo-random values in [-1, 1) for inputs. */
export function noise(seed: number): (i: number) => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return ((s >>> 0) / 4294967296) * 2 - 1;
  };
}

/** An output tensor in the shape `checkTensor`/`argmax` take. */
export function view(t: Tensor | undefined): { type: string; data: unknown } {
  if (!t) throw new Error('missing output');
  return t as unknown as { type: string; data: unknown };
}
