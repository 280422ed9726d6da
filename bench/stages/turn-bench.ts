/**
 * End-of-turn stage: what one Smart Turn question costs in the product's path — the product's own preparation
 * (core/turn: the 8 s window and the Whisper log-mel, in JS) and one `session.run` of a Smart Turn v3.2-shaped graph
 * (smart-turn-graph.ts, the real model's size and operator mix) — timed apart in the same process, so the preparation
 * is reported as a ratio to the raw run. Inputs alternate between two different turns so nothing can be cached.
 */
import { WhisperLogMel } from '../../core/turn/log-mel';
import { endOfTurnWindow } from '../../core/turn/turn-window';
import { createSession, timed, view, type BenchContext, type StageResult, type Tensor } from './bench-util';
import { checkTensor, isValid, now, round, stats } from './measure';
import { buildSmartTurnGraph, type SmartTurnShape } from './smart-turn-graph';

export interface TurnPlan {
  shape: SmartTurnShape;
  /** Timed questions (after the warm-up). */
  calls: number;
  warmup: number;
}

/** A voiced, pitch-gliding tone with a pause pattern: speech-like energy for the features, `seconds` long. */
function turnAudio(seconds: number, seed: number): Float32Array {
  const n = Math.round(seconds * 16_000);
  return Float32Array.from({ length: n }, (_, i) => {
    const t = i / 16_000;
    const f0 = 110 + 40 * Math.sin(t * 1.3 + seed);
    const env = Math.max(0, Math.sin(t * 3.1 + seed)) ** 0.5;
    return 0.3 * env * (Math.sin(2 * Math.PI * f0 * t) + 0.4 * Math.sin(4 * Math.PI * f0 * t));
  });
}

export async function benchTurn(ctx: BenchContext, plan: TurnPlan): Promise<StageResult> {
  const out: StageResult = {
    stage: 'turn',
    ep: ctx.ep,
    dtype: 'fp32',
    threads: ctx.threads,
    valid: true,
    graphs: [],
    metrics: {},
    validity: [],
  };
  const built = timed(() => buildSmartTurnGraph(plan.shape));
  const { session, info } = await createSession(ctx, built.value, built.ms, 'smart-turn-v3.2-like');
  out.graphs.push(info);
  const mel = new WhisperLogMel();
  const turns = [turnAudio(3.2, 0), turnAudio(9.5, 1)]; // a short turn (front padding) and one longer than 8 s
  const prepare = (audio: Float32Array) => mel.compute(endOfTurnWindow(audio));
  const feeds = turns.map((a) => ({ input_features: new ctx.ort.Tensor('float32', prepare(a), [1, 80, 800]) as Tensor }));

  const t0 = now();
  await session.run(feeds[0]!);
  const firstRunMs = now() - t0;
  for (let i = 0; i < plan.warmup; i++) {
    prepare(turns[i % 2]!);
    await session.run(feeds[i % 2]!);
  }
  const prepMs: number[] = [];
  const runMs: number[] = [];
  let last: Record<string, Tensor> = {};
  for (let i = 0; i < plan.calls; i++) {
    const t1 = now();
    const features = prepare(turns[i % 2]!);
    const t2 = now();
    last = (await session.run({ input_features: new ctx.ort.Tensor('float32', features, [1, 80, 800]) as Tensor })) as Record<
      string,
      Tensor
    >;
    const t3 = now();
    prepMs.push(t2 - t1);
    runMs.push(t3 - t2);
  }
  out.validity.push(checkTensor('logits', view(last.logits)));
  const p = (last.logits?.data as Float32Array | undefined)?.[0] ?? Number.NaN;
  const prep = stats(prepMs);
  const run = stats(runMs);
  out.metrics.sessionCreateMs = info.sessionMs;
  out.metrics.firstRunMs = round(firstRunMs, 1);
  out.metrics.prepareMs = prep;
  out.metrics.runMs = run;
  out.metrics.totalMs = round(prep.median + run.median, 2);
  /** The product's own work (window + log-mel) over the raw session.run, medians of the same calls. */
  out.metrics.prepareOverRun = round(prep.median / run.median, 3);
  await session.release();
  // The output is a probability: valid only inside [0, 1].
  out.metrics.probability = round(p, 4);
  out.valid = out.validity.every(isValid) && p >= 0 && p <= 1;
  return out;
}
