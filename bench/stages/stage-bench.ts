/**
 * The timed scenarios for each stage, on one ORT execution provider: what a voice turn needs from the LLM (time to
 * first token with and without a cached prefix, decode tokens/s), Pocket TTS (first audio, real-time factor) and
 * Moonshine (time per second of audio), plus the fixed cost of one `session.run`. Every run's outputs are checked;
 * a non-finite or all-zero output marks the result invalid. The stage scenarios live in llm-bench.ts, tts-bench.ts
 * and asr-bench.ts (re-exported here); this file keeps the fixed cost of one run.
 */
import { createSession, floatTensor, timed, type BenchContext, type StageResult } from './bench-util';
import { checkTensor, isValid, now, round, stats, type Stats, type Validity } from './measure';
import { G } from './onnx-graph';

export type { BenchContext, Ep, GraphInfo, StageResult } from './bench-util';
export { benchAsr, type AsrPlan } from './asr-bench';
export { benchLlm, type LlmPlan } from './llm-bench';
export { benchTts, type TtsPlan } from './tts-bench';

// ---------------------------------------------------------------------------------------------------------------
// Fixed cost of one session.run (a one-node graph) and of one dispatch (a chain of 200 Adds).

export async function benchOverhead(ctx: BenchContext, reps: number): Promise<StageResult> {
  const out: StageResult = {
    stage: 'overhead',
    ep: ctx.ep,
    dtype: 'fp32',
    threads: ctx.threads,
    valid: true,
    graphs: [],
    metrics: {},
    validity: [],
  };
  for (const [label, count] of [
    ['oneOp', 1],
    ['adds200', 200],
  ] as const) {
    const g = new G({ name: label, act: 'float32', seed: 3 });
    g.input('x', 'float32', [1, 16]);
    let x = 'x';
    for (let i = 0; i < count; i++) x = g.op('Add', [x, g.f([0.001])], {}, i === count - 1 ? 'y' : undefined);
    g.output('y', 'float32', [1, 16]);
    const built = timed(() => g.build());
    const { session, info } = await createSession(ctx, built.value, built.ms, label);
    out.graphs.push(info);
    const feeds = { x: floatTensor(ctx.ort, 'float32', [1, 16], (i) => i / 16) };
    const times: number[] = [];
    let v: Validity | null = null;
    for (let r = 0; r < reps + 5; r++) {
      const t0 = now();
      const o = await session.run(feeds);
      const dt = now() - t0;
      if (r >= 5) times.push(dt);
      v = checkTensor(`${label}.y`, o.y as unknown as { type: string; data: unknown });
    }
    out.validity.push(v!);
    out.metrics[`${label}RunMs`] = stats(times);
    await session.release();
  }
  const one = (out.metrics.oneOpRunMs as Stats).median;
  const many = (out.metrics.adds200RunMs as Stats).median;
  out.metrics.perDispatchUs = round(((many - one) / 199) * 1000, 1);
  out.valid = out.validity.every(isValid);
  return out;
}
