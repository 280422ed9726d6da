/**
 * Vision detector stage: what the webcam path costs per frame with a D-FINE-M-shaped graph (detector-graph.ts).
 * Measures session creation (weights upload + shader/kernel preparation), the first frame (pipeline compilation on
 * WebGPU) and then per-frame time, p50/p90 over N frames after warm-up. A frame = one `session.run` with a
 * [1, 3, S, S] pixel tensor from the CPU (what transformers.js does with the canvas pixels) and both outputs read
 * back (the app draws boxes on the CPU). Outputs of the last frame are checked (finite, not all zero).
 */
import { createSession, floatTensor, noise, timed, view, type BenchContext, type StageResult, type Tensor } from './bench-util';
import { buildDetector, type DetectorShape } from './detector-graph';
import { checkTensor, isValid, now, round, stats } from './measure';

export interface DetectorPlan {
  shape: DetectorShape;
  dtype: 'fp32' | 'fp16';
  /** Timed frames (after the warm-up). */
  frames: number;
  /** Untimed frames after the first one (the first is reported separately). */
  warmup: number;
}

export async function benchDetector(ctx: BenchContext, plan: DetectorPlan): Promise<StageResult> {
  const act = plan.dtype === 'fp16' ? 'float16' : 'float32';
  const out: StageResult = {
    stage: 'detector',
    ep: ctx.ep,
    dtype: plan.dtype,
    threads: ctx.threads,
    valid: true,
    graphs: [],
    metrics: {},
    validity: [],
  };
  const built = timed(() => buildDetector(plan.shape, act));
  const graph = built.value;
  const { session, info } = await createSession(ctx, graph, built.ms, `dfine-m-like-${plan.dtype}`);
  out.graphs.push(info);
  const S = plan.shape.size;
  const rnd = noise(17);
  // Two frames that differ (a moving gradient plus noise, values in [0, 1] as after the processor's 1/255 rescale),
  // alternated so no layer of the stack can cache a result.
  const frame = (phase: number) =>
    floatTensor(ctx.ort, act, [1, 3, S, S], (i) => {
      const x = i % S;
      const y = Math.floor(i / S) % S;
      return Math.min(1, Math.max(0, 0.5 + 0.3 * Math.sin((x + phase) / 23) * Math.cos(y / 31) + 0.1 * rnd(i)));
    });
  const inputs = [frame(0), frame(40)];

  const t0 = now();
  await session.run({ pixel_values: inputs[0]! });
  const firstFrameMs = now() - t0;
  for (let i = 0; i < plan.warmup; i++) await session.run({ pixel_values: inputs[(i + 1) % 2]! });
  const times: number[] = [];
  let last: Record<string, Tensor> = {};
  for (let i = 0; i < plan.frames; i++) {
    const t1 = now();
    last = (await session.run({ pixel_values: inputs[i % 2]! })) as Record<string, Tensor>;
    times.push(now() - t1);
  }
  const logits = last.logits;
  const boxes = last.pred_boxes;
  out.validity.push(checkTensor('logits', view(logits)), checkTensor('pred_boxes', view(boxes)));
  const s = stats(times);
  out.metrics.params = graph.params;
  out.metrics.gmacsPerFrame = round(graph.macs / 1e9, 2);
  out.metrics.inputSize = S;
  out.metrics.queries = plan.shape.queries;
  out.metrics.sessionCreateMs = info.sessionMs;
  out.metrics.firstFrameMs = round(firstFrameMs, 1);
  out.metrics.frameMs = s;
  out.metrics.fps = round(1000 / s.median, 1);
  /** Achieved arithmetic rate: 2 FLOPs per MAC over the median frame. */
  out.metrics.effectiveGflops = round((2 * graph.macs) / 1e9 / (s.median / 1000), 1);
  out.metrics.outputDims = { logits: (logits?.dims ?? []) as number[], pred_boxes: (boxes?.dims ?? []) as number[] };
  await session.release();
  out.valid = out.validity.every(isValid);
  return out;
}
