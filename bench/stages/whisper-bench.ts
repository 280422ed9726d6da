/**
 * ASR with Whisper (whisper-graphs.ts), reported like the Moonshine stage (stage 'asr', same per-length fields) so
 * the two compare row by row. The difference being measured: Whisper's encoder always runs over 30 s of (padded)
 * log-mel, whatever the utterance length, while Moonshine's scales with the audio. Per utterance length: the
 * encoder (first run + `reps` timed runs), then the decoder — one step over the 4 forced prompt tokens, then one
 * step per further token, `tokensPerSecond` of speech + EOS in all — with the self-attention cache and the
 * cross-attention K/V kept on the GPU (what transformers.js does with `present.*` outputs on WebGPU).
 */
import {
  createSession,
  disposeAll,
  floatTensor,
  i64,
  noise,
  timed,
  view,
  type BenchContext,
  type Feeds,
  type StageResult,
  type Tensor,
} from './bench-util';
import { asrLengthMetrics, checkTensor, isValid, now, round } from './measure';
import type { Act } from './onnx-graph';
import { buildWhisperDecoder, buildWhisperEncoder, WHISPER_PROMPT_TOKENS, type WhisperShape } from './whisper-graphs';

export interface WhisperPlan {
  shape: WhisperShape;
  /** Label in the result (`whisper-base`). */
  model: string;
  encoderAct: Act;
  decoder: 'q4' | 'fp32';
  seconds: number[];
  /** Tokens per second of speech the decoder emits (+1 for EOS). */
  tokensPerSecond: number;
  reps: number;
}

/** Index of the largest logit of the last position ([1, S, V] → the token the step emits). */
function lastArgmax(t: Tensor, vocab: number): number {
  const d = t.data as Float32Array;
  let best = -Infinity;
  let at = 0;
  for (let i = d.length - vocab; i < d.length; i++) {
    if (d[i]! > best) {
      best = d[i]!;
      at = i - (d.length - vocab);
    }
  }
  return at;
}

export async function benchWhisper(ctx: BenchContext, plan: WhisperPlan): Promise<StageResult> {
  const { ort } = ctx;
  const m = plan.shape;
  const gpu = ctx.ep === 'webgpu';
  const out: StageResult = {
    stage: 'asr',
    ep: ctx.ep,
    dtype: `enc ${plan.encoderAct === 'float16' ? 'fp16' : 'fp32'} + dec ${plan.decoder}`,
    variant: plan.model,
    threads: ctx.threads,
    valid: true,
    graphs: [],
    metrics: {},
    validity: [],
  };
  const crossNames = Array.from({ length: m.decLayers }, (_, l) => [
    `present.${l}.encoder.key`,
    `present.${l}.encoder.value`,
  ]).flat();
  const selfNames = Array.from({ length: m.decLayers }, (_, l) => [
    `present.${l}.decoder.key`,
    `present.${l}.decoder.value`,
  ]).flat();
  const gpuOut = (names: string[]) =>
    gpu ? { preferredOutputLocation: Object.fromEntries(names.map((n) => [n, 'gpu-buffer'])) } : {};
  const eb = timed(() => buildWhisperEncoder(m, plan.encoderAct));
  const enc = await createSession(ctx, eb.value, eb.ms, 'whisper_encoder', gpuOut(crossNames));
  out.graphs.push(enc.info);
  const db = timed(() => buildWhisperDecoder(m, plan.decoder));
  const dec = await createSession(ctx, db.value, db.ms, `whisper_decoder_${plan.decoder}`, gpuOut(selfNames));
  out.graphs.push(dec.info);
  const rnd = noise(19);
  const hd = m.d / m.heads;
  const framesPerSecond = m.frames / 30;
  /** One transcription's decoder run: the prompt step, then one step per token, self cache fed back from present. */
  const decode = async (cross: Feeds, tokens: number) => {
    let past: Feeds = {};
    for (let l = 0; l < m.decLayers; l++) {
      for (const kv of ['key', 'value'])
        past[`past_key_values.${l}.decoder.${kv}`] = floatTensor(ort, 'float32', [1, m.heads, 0, hd], () => 0);
    }
    const steps: number[] = [];
    let ids = Array.from({ length: WHISPER_PROMPT_TOKENS }, (_, i) => (50258 % m.vocab) + i);
    let last: Record<string, Tensor> = {};
    const d0 = now();
    for (let t = 0; t < tokens; t++) {
      const s0 = now();
      const o = (await dec.session.run({ input_ids: i64(ort, ids, [1, ids.length]), ...past, ...cross })) as Record<
        string,
        Tensor
      >;
      ids = [lastArgmax(o.logits!, m.vocab)];
      steps.push(now() - s0);
      disposeAll(Object.values(past));
      past = Object.fromEntries(selfNames.map((n) => [n.replace('present.', 'past_key_values.'), o[n]!]));
      last = o;
    }
    const decodeMs = now() - d0;
    disposeAll(Object.values(past));
    return { steps, decodeMs, last };
  };
  const perLength: Record<string, unknown>[] = [];
  for (const sec of plan.seconds) {
    // Log-mel of `sec` seconds of speech-like signal, then the processor's padding (a constant floor) up to 30 s.
    const speech = Math.round(sec * framesPerSecond);
    const mel = floatTensor(ort, plan.encoderAct, [1, m.mels, m.frames], (i) =>
      i % m.frames < speech ? 0.4 * Math.sin(i / 11) + 0.2 * rnd(i) : -0.7,
    );
    const encode = async () => (await enc.session.run({ input_features: mel })) as Record<string, Tensor>;
    const t0 = now();
    let eo = await encode();
    const firstMs = now() - t0;
    out.validity.push(checkTensor(`encoder${sec}s`, view(eo.last_hidden_state)));
    const times: number[] = [];
    for (let r = 0; r < plan.reps; r++) {
      disposeAll(Object.values(eo));
      const t1 = now();
      eo = await encode();
      times.push(now() - t1);
    }
    if (sec === plan.seconds[0]) {
      const k = eo[crossNames[0]!]!;
      const data = gpu ? await k.getData() : k.data;
      out.validity.push(checkTensor('cross.0.key', { type: k.type, data }));
    }
    const cross: Feeds = Object.fromEntries(crossNames.map((n) => [n.replace('present.', 'past_key_values.'), eo[n]!]));
    const tokens = Math.ceil(sec * plan.tokensPerSecond) + 1;
    // The app warms its sessions at load: the first decode (pipeline compilation) is timed apart, not in a length.
    if (sec === plan.seconds[0]) out.metrics.decoderWarmupMs = round((await decode(cross, 2)).decodeMs, 1);
    const { steps, decodeMs, last } = await decode(cross, tokens);
    disposeAll(Object.values(eo));
    out.validity.push(checkTensor(`decoder${sec}s.logits`, view(last.logits)));
    perLength.push(
      asrLengthMetrics({ seconds: sec, encoderFrames: m.frames / 2, firstMs, encoderTimes: times, tokens, steps, decodeMs }),
    );
  }
  out.metrics.perLength = perLength;
  out.metrics.tokensPerSecondOfSpeech = plan.tokensPerSecond;
  out.metrics.promptTokens = WHISPER_PROMPT_TOKENS;
  out.metrics.paddedSeconds = 30;
  out.metrics.decoderStepWeightBytes = db.value.stepWeightBytes;
  await enc.session.release();
  await dec.session.release();
  out.valid = out.validity.every(isValid);
  return out;
}
