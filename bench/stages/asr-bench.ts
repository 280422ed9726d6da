/**
 * The Moonshine ASR stage bench (split from stage-bench.ts, which re-exports it): encoder time per clip length plus
 * the decoder steps of a transcript. Every run's outputs are checked; a non-finite or all-zero output marks the
 * result invalid.
 */
import {
  createSession,
  disposeAll,
  floatTensor,
  i64,
  noise,
  timed,
  type BenchContext,
  type Feeds,
  type StageResult,
  type Tensor,
} from './bench-util';
import { argmax, asrLengthMetrics, checkTensor, isValid, now, round } from './measure';
import { buildMoonshineDecoder, buildMoonshineEncoder, encoderFrames, type MoonshineShape } from './moonshine-graphs';
import { fromFloat16, type Act } from './onnx-graph';

// ---------------------------------------------------------------------------------------------------------------
// ASR: Moonshine encoder per clip length + q4 decoder steps.

export interface AsrPlan {
  shape: MoonshineShape;
  encoderAct: Act;
  decoder: 'q4' | 'fp32';
  seconds: number[];
  /** Tokens per second of speech the decoder emits (+1 for EOS). */
  tokensPerSecond: number;
  reps: number;
  /**
   * ASR drafts (models/asr/draft-check.ts): also decode each length with a draft of all but this many passes, i.e. one
   * pass over [start, ...draft] and the rest one token a step (2 = the last word's token and EOS). Empty: not timed.
   */
  draftTails?: number[];
}

export async function benchAsr(ctx: BenchContext, plan: AsrPlan): Promise<StageResult> {
  const { ort } = ctx;
  const m = plan.shape;
  const out: StageResult = {
    stage: 'asr',
    ep: ctx.ep,
    dtype: `enc ${plan.encoderAct === 'float16' ? 'fp16' : 'fp32'} + dec ${plan.decoder}`,
    threads: ctx.threads,
    valid: true,
    graphs: [],
    metrics: {},
    validity: [],
  };
  const gpu = ctx.ep === 'webgpu';
  // Cross K/V stay on the GPU as the decoder's input (transformers.js keeps the merged decoder's present.* there);
  // the fp16 encoder's are converted to fp32 on the CPU for the q4 decoder (fp32 activations), so they go through it.
  const crossOnGpu = gpu && plan.encoderAct === 'float32';
  const crossNames = Array.from({ length: m.decLayers }, (_, l) => [`cross.${l}.key`, `cross.${l}.value`]).flat();
  const eb = timed(() => buildMoonshineEncoder(m, plan.encoderAct));
  const enc = await createSession(
    ctx,
    eb.value,
    eb.ms,
    'moonshine_encoder',
    crossOnGpu ? { preferredOutputLocation: Object.fromEntries(crossNames.map((n) => [n, 'gpu-buffer'])) } : {},
  );
  out.graphs.push(enc.info);
  const db = timed(() => buildMoonshineDecoder(m, plan.decoder));
  const presentNames = Array.from({ length: m.decLayers }, (_, l) => [`present.${l}.key`, `present.${l}.value`]).flat();
  const dec = await createSession(
    ctx,
    db.value,
    db.ms,
    `moonshine_decoder_${plan.decoder}`,
    gpu ? { preferredOutputLocation: Object.fromEntries(presentNames.map((n) => [n, 'gpu-buffer'])) } : {},
  );
  out.graphs.push(dec.info);
  const rnd = noise(9);
  const hd = m.d / m.heads;
  /**
   * One transcription's decoder run from BOS: one step per token, self cache fed back from present. With `prompt` > 1
   * the first pass takes that many ids at once (the start token and a draft), as the draft-verified decode does.
   */
  const decode = async (cross: Feeds, tokens: number, prompt = 1) => {
    let past: Feeds = {};
    for (let l = 0; l < m.decLayers; l++) {
      past[`past.${l}.key`] = floatTensor(ort, 'float32', [1, m.heads, 0, hd], () => 0);
      past[`past.${l}.value`] = floatTensor(ort, 'float32', [1, m.heads, 0, hd], () => 0);
    }
    const steps: number[] = [];
    let token = 1;
    let last: Record<string, Tensor> = {};
    const d0 = now();
    for (let t = prompt - 1; t < tokens; t++) {
      const s0 = now();
      const ids =
        t === prompt - 1 ? Array.from({ length: prompt }, (_, i) => (i === 0 ? 1 : 2 + ((i * 7) % (m.vocab - 2)))) : [token];
      const o = (await dec.session.run({ input_ids: i64(ort, ids, [1, ids.length]), ...past, ...cross })) as Record<
        string,
        Tensor
      >;
      // The last row predicts the next token (a prompt pass has one row per id).
      const logits = o.logits as unknown as { type: string; data: Float32Array | Uint16Array };
      token = argmax({ type: logits.type, data: logits.data.subarray(logits.data.length - m.vocab) });
      steps.push(now() - s0);
      disposeAll(Object.values(past));
      past = Object.fromEntries(
        Array.from({ length: m.decLayers }, (_, l) => [
          [`past.${l}.key`, o[`present.${l}.key`]!],
          [`past.${l}.value`, o[`present.${l}.value`]!],
        ]).flat(),
      );
      last = o;
    }
    const decodeMs = now() - d0;
    disposeAll(Object.values(past));
    return { steps, decodeMs, last };
  };
  const perLength: Record<string, unknown>[] = [];
  for (const sec of plan.seconds) {
    const samples = Math.round(sec * 16000);
    const audio = floatTensor(ort, plan.encoderAct, [1, samples], (i) => 0.3 * Math.sin(i / 7) + 0.05 * rnd(i));
    const t0 = now();
    const e0 = (await enc.session.run({ input_values: audio })) as Record<string, Tensor>;
    const firstMs = now() - t0;
    out.validity.push(checkTensor(`encoder${sec}s`, e0.last_hidden_state as unknown as { type: string; data: unknown }));
    const times: number[] = [];
    let eo = e0;
    for (let r = 0; r < plan.reps; r++) {
      disposeAll(Object.values(eo));
      const t1 = now();
      eo = (await enc.session.run({ input_values: audio })) as Record<string, Tensor>;
      times.push(now() - t1);
    }
    // Decoder: cross K/V from the encoder (fp32 for the q4 decoder), self cache kept on the GPU.
    const cross: Feeds = {};
    for (let l = 0; l < m.decLayers; l++) {
      for (const kv of ['key', 'value']) {
        const t = eo[`cross.${l}.${kv}`]!;
        cross[`cross.${l}.${kv}`] =
          plan.encoderAct === 'float16'
            ? floatTensor(ort, 'float32', t.dims as number[], (i) => fromFloat16((t.data as Uint16Array)[i]!))
            : t;
      }
    }
    const tokens = Math.ceil(sec * plan.tokensPerSecond) + 1;
    // The app warms its sessions at load: the first decode (pipeline compilation) is timed apart, not in a length.
    if (sec === plan.seconds[0]) out.metrics.decoderWarmupMs = round((await decode(cross, 2)).decodeMs, 1);
    const { steps, decodeMs, last } = await decode(cross, tokens);
    out.validity.push(checkTensor(`decoder${sec}s.logits`, last.logits as unknown as { type: string; data: unknown }));
    // The same transcription with a draft: the prompt pass, then the tail; medians of three, next to the full decode.
    const drafts: Record<string, unknown>[] = [];
    for (const tail of plan.draftTails ?? []) {
      if (tail >= tokens) continue;
      const runs = [];
      for (let r = 0; r < 3; r++) runs.push(await decode(cross, tokens, tokens - tail + 1));
      const totals = runs.map((x) => x.decodeMs);
      const median = [...totals].sort((a, b) => a - b)[1]!;
      const lastRun = runs.at(-1)!;
      out.validity.push(
        checkTensor(`decoder${sec}s.draft${tail}.logits`, lastRun.last.logits as unknown as { type: string; data: unknown }),
      );
      drafts.push({
        draftTokens: tokens - tail,
        passes: tail,
        promptPassMs: round([...runs.map((x) => x.steps[0]!)].sort((a, b) => a - b)[1]!, 2),
        // The first pass at a new prompt length (kernels for that shape built, if the runtime keys them by shape).
        promptPassFirstMs: round(runs[0]!.steps[0]!, 2),
        decodeMs: round(median, 2),
        decodeVsFull: round(median / decodeMs, 3),
      });
    }
    disposeAll(Object.values(eo));
    perLength.push({
      ...asrLengthMetrics({
        seconds: sec,
        encoderFrames: encoderFrames(samples),
        firstMs,
        encoderTimes: times,
        tokens,
        steps,
        decodeMs,
      }),
      ...(drafts.length ? { drafts } : {}),
    });
  }
  out.metrics.perLength = perLength;
  out.metrics.tokensPerSecondOfSpeech = plan.tokensPerSecond;
  out.metrics.crossKvOnGpu = crossOnGpu;
  await enc.session.release();
  await dec.session.release();
  out.valid = out.validity.every(isValid);
  return out;
}
