/**
 * Graph capture on vs off for the LLM decode step (onnxruntime-web WebGPU EP, `enableGraphCapture`).
 *
 * Why a separate graph: capture records the step's GPU commands once and replays them, so it needs (1) static
 * shapes, (2) every node on the WebGPU EP with no CPU↔GPU copy inside the graph, (3) every input and output in a
 * GPU buffer that stays the same from run to run, and (4) for GroupQueryAttention, past and present K/V in one
 * shared buffer. The transformers.js-contract graph (llm-graph.ts) breaks (1)–(2): the KV cache grows by one
 * position per token, and the attention mask → seqlens/total-length arithmetic is int64 shape math on the CPU EP.
 * So this bench uses the decode-only static variant (`staticCache`): a fixed-capacity KV buffer bound as both
 * `past_key_values.*` and `present.*` (GQA writes the new entry in place and attends to seqlens_k + 1 positions),
 * seqlens_k / total_sequence_length fed directly. Three runs of that graph, same tokens (teacher-forced), same start:
 * - off: a plain session, token and lengths as CPU tensors, logits returned on the CPU, states GPU-resident;
 * - off, GPU I/O: no capture, but every input/output in fixed GPU buffers as capture needs (token and lengths
 *   written with `queue.writeBuffer`, logits copied back) — separates the I/O's cost from capture's;
 * - on: the same I/O, captured (see epOnlyCapture for how it is switched on).
 * The captured logits must equal the others at every step, else the job is invalid (capture has returned wrong
 * outputs on some graphs: reference/gpu-bench.md §7). On WASM only "off" runs (it still checks the static graph);
 * capture is skipped: "n/a on wasm".
 */
import {
  createSession,
  i64,
  noise,
  timed,
  type BenchContext,
  type Feeds,
  type Session,
  type StageResult,
  type Tensor,
} from './bench-util';
import { buildLlmGraph, llmAct, llmStateSpecs, presentName, type LlmDtype, type LlmShape } from './llm-graph';
import { argmax, checkTensor, isValid, now, round, stats } from './measure';
import { toFloat16 } from './onnx-graph';
import { buildRewrittenGraph, plainVsRewritten, type ExporterCheckPlan } from './static-kv-bench';

export interface CapturePlan {
  shape: LlmShape;
  dtype: LlmDtype;
  /** KV buffer capacity in positions. */
  capacity: number;
  /** Positions already in the cache when decoding starts. */
  context: number;
  decodeTokens: number;
  accuracyLevel?: number;
  /** Also decode on the WASM EP as a numerical reference for both GPU runs (small graphs only). */
  reference?: boolean;
  /**
   * Use a graph in this exporter's structure rewritten by the product's static-KV rewrite (static-kv-bench.ts)
   * instead of the builder's own static variant, and check it against its plain graph first.
   */
  exporter?: ExporterCheckPlan;
}

/** The few WebGPU calls used here (no @webgpu/types in this project). */
interface GpuBuf {
  mapAsync(mode: number): Promise<void>;
  getMappedRange(): ArrayBuffer;
  unmap(): void;
  destroy(): void;
}
interface GpuDevice {
  createBuffer(d: { size: number; usage: number }): GpuBuf;
  createCommandEncoder(): {
    copyBufferToBuffer(a: GpuBuf, ao: number, b: GpuBuf, bo: number, n: number): void;
    finish(): unknown;
  };
  queue: { writeBuffer(b: GpuBuf, offset: number, data: ArrayBufferView): void; submit(c: unknown[]): void };
}
const USAGE = { MAP_READ: 1, COPY_SRC: 4, COPY_DST: 8, STORAGE: 128 };
const WARM = 3;

interface RunResult {
  stepMs: number[];
  warmMs: number[];
  /** Logits of every step (teacher-forced, so step t of two runs is comparable). */
  logits: Float32Array[];
}

export async function benchCapture(ctx: BenchContext, plan: CapturePlan): Promise<StageResult> {
  const { ort } = ctx;
  const act = llmAct(plan.dtype);
  const out: StageResult = {
    stage: 'capture',
    ep: ctx.ep,
    dtype: plan.dtype,
    variant: 'llm-decode',
    threads: ctx.threads,
    valid: true,
    graphs: [],
    metrics: {},
    validity: [],
  };
  // The product's contract: the rewritten graph's greedy tokens equal the plain graph's (else the job is invalid).
  let plainMatches = true;
  const fromExporter = plan.exporter ? buildRewrittenGraph(plan.shape, plan.dtype, plan.exporter.style, plan.capacity) : null;
  const built = fromExporter
    ? { value: fromExporter.rewritten, ms: fromExporter.buildMs + fromExporter.rewriteMs }
    : timed(() =>
        buildLlmGraph(plan.shape, plan.dtype, {
          external: 'model.onnx_data',
          accuracyLevel: plan.accuracyLevel,
          staticCache: plan.capacity,
        }),
      );
  const graph = built.value;
  if (fromExporter && plan.exporter) {
    out.variant = `llm-decode-${plan.exporter.style}`;
    const check = await plainVsRewritten(ctx, plan.shape, plan.dtype, fromExporter, plan.capacity, plan.exporter);
    out.metrics.plainVsStatic = {
      ...check,
      rewriteMs: round(fromExporter.rewriteMs, 1),
      removedNodes: fromExporter.removedNodes,
    };
    plainMatches = check.tokensEqual === true;
  }
  const states = llmStateSpecs(plan.shape).map((s) => ({
    ...s,
    dims: s.kind === 'kv' ? [1, plan.shape.kvHeads, plan.capacity, plan.shape.headDim] : s.dims,
  }));
  const V = plan.shape.vocab;
  // Initial state: random conv states, K/V filled for the first `context` positions (what a prefill leaves).
  const rnd = noise(23);
  const init = states.map((s) => {
    const n = s.dims.reduce((a, b) => a * b, 1);
    const f = new Float32Array(n);
    const per = s.dims[3] ?? 1;
    for (let i = 0; i < n; i++) f[i] = s.kind === 'conv' || Math.floor(i / per) % plan.capacity < plan.context ? 0.5 * rnd(i) : 0;
    return act === 'float16' ? toFloat16(f) : f;
  });
  const tokens = Array.from({ length: plan.decodeTokens + WARM }, (_, i) => (i * 7919 + 11) % V);
  const steps = tokens.length;
  if (plan.context + steps > plan.capacity)
    throw new Error(`context ${plan.context} + ${steps} steps exceeds capacity ${plan.capacity}`);

  // --- off: a plain session.
  const off = await createSession(ctx, graph, built.ms, `lfm2-${plan.dtype}-static`);
  out.graphs.push(off.info);
  // ORT's own device, read after each session creation: ORT sets it when a session creates its device and drops that
  // device when the last session is released (buffers from the old one are then invalid). Typed as a Promise, a
  // plain value in this build.
  const ortDevice = async () =>
    ctx.ep === 'webgpu'
      ? (((await (ort.env.webgpu as unknown as { device?: unknown }).device) as GpuDevice | undefined) ?? null)
      : null;
  let device = await ortDevice();
  const gpuState = (dev: GpuDevice) =>
    states.map((s, i) => {
      const data = init[i]!;
      const buf = dev.createBuffer({ size: align(data.byteLength), usage: USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST });
      dev.queue.writeBuffer(buf, 0, data);
      return {
        spec: s,
        buf,
        bytes: align(data.byteLength),
        tensor: ort.Tensor.fromGpuBuffer(buf as never, { dataType: act, dims: s.dims }),
      };
    });
  const runPlain = async (session: Session, dev: GpuDevice | null): Promise<RunResult> => {
    const gs = dev ? gpuState(dev) : null;
    let cpuStates: Feeds = Object.fromEntries(
      states.map((s, i) => [s.name, new ort.Tensor(act, init[i]! as Float32Array, s.dims)]),
    );
    const res: RunResult = { stepMs: [], warmMs: [], logits: [] };
    for (let t = 0; t < steps; t++) {
      const pos = plan.context + t;
      const t0 = now();
      const feeds: Feeds = {
        input_ids: i64(ort, [tokens[t]!], [1, 1]),
        seqlens_k: new ort.Tensor('int32', Int32Array.of(pos), [1]),
        total_sequence_length: new ort.Tensor('int32', Int32Array.of(pos + 1), [1]),
      };
      if (session.inputNames.includes('position_ids')) feeds.position_ids = i64(ort, [pos], [1, 1]);
      // WebGPU: each state is one GPU buffer bound as both past input and present output (updated in place).
      if (gs) for (const s of gs) feeds[s.spec.name] = s.tensor;
      else Object.assign(feeds, cpuStates);
      const fetches = gs
        ? { logits: null, ...Object.fromEntries(gs.map((s) => [presentName(s.spec.name), s.tensor])) }
        : undefined;
      const o = (await (fetches ? session.run(feeds, fetches as never) : session.run(feeds))) as Record<string, Tensor>;
      argmax(o.logits as unknown as { type: string; data: unknown });
      (t < WARM ? res.warmMs : res.stepMs).push(now() - t0);
      if (!gs) cpuStates = Object.fromEntries(states.map((s) => [s.name, o[presentName(s.name)]!]));
      res.logits.push(Float32Array.from(o.logits!.data as Float32Array));
    }
    for (const s of gs ?? []) s.buf.destroy();
    return res;
  };
  const offRes = await runPlain(off.session, device);
  await off.session.release();
  out.validity.push(checkTensor('off.logits', { type: 'float32', data: offRes.logits[steps - 1]! }));
  out.metrics.off = summary(offRes);
  out.metrics.plan = { capacity: plan.capacity, context: plan.context, decodeTokens: plan.decodeTokens, warmRuns: WARM };
  out.metrics.kvBufferBytes = init.filter((_, i) => states[i]!.kind === 'kv').reduce((a, d) => a + d.byteLength, 0);

  if (!device) {
    const why =
      ctx.ep === 'webgpu'
        ? 'no GPUDevice from ort.env.webgpu.device'
        : 'n/a on wasm: enableGraphCapture is a WebGPU EP option (the WASM EP has no command buffers to record)';
    out.skipped = [`graph capture on: ${why}`];
    out.metrics.on = { skipped: why };
    out.valid = out.validity.every(isValid) && plainMatches;
    return out;
  }

  // GPU I/O as capture needs it: every input and output one of our buffers, the same ones on every run (a replay
  // reads and writes exactly those); token and lengths written with queue.writeBuffer, logits copied back.
  const runGpuIo = async (session: Session, dev: GpuDevice): Promise<RunResult> => {
    const gs = gpuState(dev);
    const small = (dataType: 'int64' | 'int32' | 'float32' | 'float16', bytes: number, dims: number[]) => {
      const buf = dev.createBuffer({ size: align(bytes), usage: USAGE.STORAGE | USAGE.COPY_SRC | USAGE.COPY_DST });
      return { buf, tensor: ort.Tensor.fromGpuBuffer(buf as never, { dataType, dims }) };
    };
    const ids = small('int64', 8, [1, 1]);
    const seq = small('int32', 4, [1]);
    const total = small('int32', 4, [1]);
    const position = small('int64', 8, [1, 1]);
    const logitsOut = small('float32', V * 4, [1, 1, V]);
    const staging = dev.createBuffer({ size: align(V * 4), usage: USAGE.MAP_READ | USAGE.COPY_DST });
    // K/V: one buffer as past and present (GQA writes the new entry in place; capture requires it). Conv states: the
    // present goes to its own buffer, copied over the past after the run. In place, a step that runs twice would
    // shift the state twice — and ORT executes the capturing run twice (it captures, then replays to produce the
    // outputs), which corrupted the first step's logits and the conv states after it (seen on the H200).
    const convOut = gs.filter((s) => s.spec.kind === 'conv').map((s) => ({ s, out: small(act, s.bytes, s.spec.dims) }));
    const feeds: Feeds = {
      input_ids: ids.tensor,
      seqlens_k: seq.tensor,
      total_sequence_length: total.tensor,
      ...(session.inputNames.includes('position_ids') ? { position_ids: position.tensor } : {}),
      ...Object.fromEntries(gs.map((s) => [s.spec.name, s.tensor])),
    };
    const fetches: Feeds = {
      logits: logitsOut.tensor,
      ...Object.fromEntries(gs.map((s) => [presentName(s.spec.name), s.tensor])),
    };
    for (const c of convOut) fetches[presentName(c.s.spec.name)] = c.out.tensor;
    const res: RunResult = { stepMs: [], warmMs: [], logits: [] };
    for (let t = 0; t < steps; t++) {
      const pos = plan.context + t;
      const t0 = now();
      dev.queue.writeBuffer(ids.buf, 0, new Uint8Array(BigInt64Array.of(BigInt(tokens[t]!)).buffer));
      dev.queue.writeBuffer(seq.buf, 0, new Uint8Array(Int32Array.of(pos).buffer));
      dev.queue.writeBuffer(total.buf, 0, new Uint8Array(Int32Array.of(pos + 1).buffer));
      dev.queue.writeBuffer(position.buf, 0, new Uint8Array(BigInt64Array.of(BigInt(pos)).buffer));
      await session.run(feeds, fetches as never);
      const enc = dev.createCommandEncoder();
      for (const c of convOut) enc.copyBufferToBuffer(c.out.buf, 0, c.s.buf, 0, c.s.bytes);
      enc.copyBufferToBuffer(logitsOut.buf, 0, staging, 0, V * 4);
      dev.queue.submit([enc.finish()]);
      await staging.mapAsync(1);
      const logits = new Float32Array(staging.getMappedRange().slice(0, V * 4));
      staging.unmap();
      argmax({ type: 'float32', data: logits });
      (t < WARM ? res.warmMs : res.stepMs).push(now() - t0);
      res.logits.push(logits);
    }
    for (const b of [
      ...gs.map((s) => s.buf),
      ...convOut.map((c) => c.out.buf),
      ids.buf,
      seq.buf,
      total.buf,
      position.buf,
      logitsOut.buf,
      staging,
    ])
      b.destroy();
    return res;
  };

  // --- off with capture-style I/O: separates the cost and correctness of the I/O from those of capture itself.
  const io = await createSession(ctx, graph, 0, `lfm2-${plan.dtype}-static-gpu-io`);
  out.graphs.push(io.info);
  device = (await ortDevice()) ?? device;
  const ioRes = await runGpuIo(io.session, device);
  await io.session.release();
  out.validity.push(checkTensor('offGpuIo.logits', { type: 'float32', data: ioRes.logits[steps - 1]! }));
  out.metrics.offGpuIo = summary(ioRes);

  // --- on: the same graph, captured in the WebGPU EP (see epOnlyCapture for why not the plain session option).
  const on = await createSession(ctx, graph, 0, `lfm2-${plan.dtype}-static-capture`, epOnlyCapture());
  out.graphs.push(on.info);
  device = (await ortDevice()) ?? device;
  const onRes = await runGpuIo(on.session, device);
  await on.session.release();
  out.validity.push(checkTensor('on.logits', { type: 'float32', data: onRes.logits[steps - 1]! }));
  out.metrics.on = { ...summary(onRes), mode: 'EP-level capture, JS binds I/O per run (epOnlyCapture)' };
  const median = (k: string) => (out.metrics[k] as { msPerToken: { median: number } }).msPerToken.median;
  out.metrics.speedup = round(median('off') / median('on'), 2);
  out.metrics.speedupVsGpuIo = round(median('offGpuIo') / median('on'), 2);
  out.metrics.offGpuIoVsOff = compare(ioRes, offRes);
  // Same tokens, same start state: the captured replay must give the non-captured logits at every step.
  const onVsOff = compare(onRes, offRes);
  out.metrics.captureVsOff = onVsOff;
  if (plan.reference) {
    // Which of the two is right: the same graph and steps on the WASM EP.
    const ref = await createSession({ ...ctx, ep: 'wasm' }, graph, 0, `lfm2-${plan.dtype}-static-wasm-ref`);
    const refRes = await runPlain(ref.session, null);
    await ref.session.release();
    out.metrics.offVsWasm = compare(offRes, refRes);
    out.metrics.offGpuIoVsWasm = compare(ioRes, refRes);
    out.metrics.onVsWasm = compare(onRes, refRes);
  }
  // A mismatch makes the job invalid but keeps its numbers in the report (an `error` would hide them).
  out.valid = out.validity.every(isValid) && onVsOff.firstDivergentStep === null && plainMatches;
  return out;
}

/**
 * Session options that turn graph capture on in the WebGPU EP only. With the plain `enableGraphCapture: true`, this
 * onnxruntime-web build also switches its JS layer to bind inputs/outputs once, on the first run; with the outputs
 * pre-allocated — which GroupQueryAttention requires under capture (present must share past's buffer: "Graph
 * capture requires past/present KV cache to share the same buffer") — the second run then fails while mapping the
 * bound outputs back ("Cannot set properties of undefined (setting 'Symbol(gpuBufferMetadata)')"): the buffer
 * handles it bound were released after run 1. The EP-level option alone (what transformers.js PR #1765 does via
 * `extra`, which this build applies too late: microsoft/onnxruntime PR #32456) captures and replays while the JS
 * layer passes the same buffers on every run. So the flag reads true where ORT builds the EP options
 * (setExecutionProviders, setSessionOptions in ort.webgpu.mjs) and false where it sets up its JS binding.
 */
function epOnlyCapture(): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  Object.defineProperty(o, 'enableGraphCapture', {
    enumerable: true,
    get: () => /setExecutionProviders|setSessionOptions/.test(new Error().stack ?? ''),
  });
  return o;
}

/** Per-step agreement of two teacher-forced runs: worst relative difference, and the first step that diverges. */
function compare(
  a: RunResult,
  b: RunResult,
): {
  maxRelDiff: number;
  lastRelDiff: number;
  lastArgmaxMatch: boolean;
  firstDivergentStep: number | null;
  relDiffByStep: number[];
} {
  const bySt: number[] = [];
  let maxRel = 0;
  let last = 0;
  let first: number | null = null;
  let match = true;
  a.logits.forEach((x, t) => {
    const y = b.logits[t]!;
    let d = 0;
    let m = 0;
    for (let i = 0; i < x.length; i++) {
      d = Math.max(d, Math.abs(x[i]! - y[i]!));
      m = Math.max(m, Math.abs(y[i]!));
    }
    const rel = d / Math.max(m, 1e-6);
    match = argmax({ type: 'float32', data: x }) === argmax({ type: 'float32', data: y });
    if (first === null && (rel > 2e-2 || !match)) first = t;
    maxRel = Math.max(maxRel, rel);
    last = rel;
    bySt.push(Number(rel.toPrecision(2)));
  });
  return {
    maxRelDiff: round(maxRel, 6),
    lastRelDiff: round(last, 6),
    lastArgmaxMatch: match,
    firstDivergentStep: first,
    relDiffByStep: bySt,
  };
}

function align(bytes: number): number {
  return Math.ceil(bytes / 16) * 16;
}

function summary(r: RunResult): Record<string, unknown> {
  const s = stats(r.stepMs);
  return { msPerToken: s, tokensPerSecond: round(1000 / s.median, 1), warmRunsMs: r.warmMs.map((x) => round(x, 2)) };
}
