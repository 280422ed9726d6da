/**
 * The timed scenarios for each stage, on one ORT execution provider: what a voice turn needs from the LLM (time to
 * first token with and without a cached prefix, decode tokens/s), Pocket TTS (first audio, real-time factor) and
 * Moonshine (time per second of audio), plus the fixed cost of one `session.run`. Every run's outputs are checked;
 * a non-finite or all-zero output marks the result invalid.
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
import { buildLlmGraph, llmAct, llmStateSpecs, presentName, type LlmDtype, type LlmShape } from './llm-graph';
import { argmax, checkTensor, isValid, now, round, stats, type Stats, type Validity } from './measure';
import { buildMoonshineDecoder, buildMoonshineEncoder, encoderFrames, type MoonshineShape } from './moonshine-graphs';
import { fromFloat16, G, type Act } from './onnx-graph';
import {
  buildFlowLmFlow,
  buildFlowLmMain,
  buildMimiDecoder,
  type PocketDtype,
  type PocketGraph,
  type PocketShape,
} from './pocket-graphs';

export type { BenchContext, Ep, GraphInfo, StageResult } from './bench-util';

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

// ---------------------------------------------------------------------------------------------------------------
// LLM: time to first token (TTFT) for prompts with and without a cached prefix; decode tokens/s.

export interface LlmPlan {
  shape: LlmShape;
  dtype: LlmDtype;
  prompts: number[];
  /** New tokens of a turn when the rest of the prompt is a cached prefix. */
  newTokens: number;
  decodeContexts: number[];
  decodeTokens: number;
  reps: number;
  /** Also time decode with every output read back to the CPU and re-uploaded (GPU-resident KV off). */
  cpuKvCompare: boolean;
  accuracyLevel?: number;
}

export async function benchLlm(ctx: BenchContext, plan: LlmPlan): Promise<StageResult> {
  const { ort } = ctx;
  const act = llmAct(plan.dtype);
  const out: StageResult = {
    stage: 'llm',
    ep: ctx.ep,
    dtype: plan.dtype,
    threads: ctx.threads,
    valid: true,
    graphs: [],
    metrics: {},
    validity: [],
  };
  const built = timed(() =>
    buildLlmGraph(plan.shape, plan.dtype, { external: 'model.onnx_data', accuracyLevel: plan.accuracyLevel }),
  );
  const graph = built.value;
  const states = llmStateSpecs(plan.shape);
  const gpuOut = ctx.ep === 'webgpu';
  // transformers.js keeps present.* on the GPU and feeds them back (preferredOutputLocation 'gpu-buffer').
  const preferred = gpuOut ? Object.fromEntries(states.map((s) => [presentName(s.name), 'gpu-buffer'])) : undefined;
  const { session, info } = await createSession(
    ctx,
    graph,
    built.ms,
    `lfm2-${plan.dtype}`,
    preferred ? { preferredOutputLocation: preferred } : {},
  );
  graph.onnx = new Uint8Array(0);
  delete graph.external;
  out.graphs.push(info);
  out.metrics.decodeWeightBytes = graph.decodeWeightBytes;
  const kvBytesPerToken =
    plan.shape.layerTypes.filter((t) => t === 'full_attention').length *
    2 *
    plan.shape.kvHeads *
    plan.shape.headDim *
    (act === 'float16' ? 2 : 4);
  out.metrics.kvBytesPerToken = kvBytesPerToken;
  const rnd = noise(7);
  const ids = (n: number) => Array.from({ length: n }, () => Math.floor(((rnd(0) + 1) / 2) * (plan.shape.vocab - 1)));

  const emptyPast = (): Feeds => {
    const f: Feeds = {};
    for (const s of states) f[s.name] = floatTensor(ort, act, s.dims, () => 0);
    return f;
  };
  const feedsFor = (tokens: number[], past: Feeds, pastLen: number): Feeds => ({
    input_ids: i64(ort, tokens, [1, tokens.length]),
    attention_mask: i64(ort, new Array(pastLen + tokens.length).fill(1), [1, pastLen + tokens.length]),
    position_ids: i64(
      ort,
      tokens.map((_, i) => pastLen + i),
      [1, tokens.length],
    ),
    num_logits_to_keep: i64(ort, [1], []),
    ...past,
  });
  const pastFrom = (o: Record<string, Tensor>): Feeds => Object.fromEntries(states.map((s) => [s.name, o[presentName(s.name)]!]));
  const check = (label: string, o: Record<string, Tensor>) => {
    const v = checkTensor(label, o.logits as unknown as { type: string; data: unknown });
    out.validity.push(v);
    return argmax(o.logits as unknown as { type: string; data: unknown });
  };
  /** One prefill; returns its time (run + logits read-back + argmax) and outputs. */
  const prefill = async (tokens: number[], past: Feeds, pastLen: number) => {
    const feeds = feedsFor(tokens, past, pastLen);
    const t0 = now();
    const o = (await session.run(feeds)) as Record<string, Tensor>;
    argmax(o.logits as unknown as { type: string; data: unknown });
    return { ms: now() - t0, o };
  };

  const ttftCold: Record<string, unknown> = {};
  const ttftCached: Record<string, unknown> = {};
  const decode: Record<string, unknown> = {};
  for (const n of plan.prompts) {
    ctx.log(`  prompt ${n}`);
    // Without a cached prefix: the whole prompt.
    const prompt = ids(n);
    const first = await prefill(prompt, emptyPast(), 0);
    check(`prefill${n}.logits`, first.o);
    disposeAll(Object.values(first.o));
    const times: number[] = [];
    for (let r = 0; r < plan.reps; r++) {
      const p = await prefill(prompt, emptyPast(), 0);
      times.push(p.ms);
      disposeAll(Object.values(p.o));
    }
    ttftCold[n] = { firstEncounterMs: round(first.ms, 2), ...stats(times) };

    // With a cached prefix: prefill n − newTokens once (kept on the GPU), then time the new turn only.
    const prefixLen = n - plan.newTokens;
    const pre = await prefill(prompt.slice(0, prefixLen), emptyPast(), 0);
    const past = pastFrom(pre.o);
    const turn = prompt.slice(prefixLen);
    const c0 = await prefill(turn, past, prefixLen);
    check(`cached${n}.logits`, c0.o);
    disposeAll(Object.values(c0.o));
    const ctimes: number[] = [];
    for (let r = 0; r < plan.reps; r++) {
      const p = await prefill(turn, past, prefixLen);
      ctimes.push(p.ms);
      disposeAll(Object.values(p.o));
    }
    ttftCached[n] = { prefixTokens: prefixLen, newTokens: turn.length, firstEncounterMs: round(c0.ms, 2), ...stats(ctimes) };

    // Decode at this context: continue from the full prompt's cache, feeding present.* back each step.
    if (plan.decodeContexts.includes(n)) {
      const full = await prefill(turn, past, prefixLen);
      let cache = pastFrom(full.o);
      let len = n;
      let token = argmax(full.o.logits as unknown as { type: string; data: unknown });
      const step: number[] = [];
      for (let t = 0; t < plan.decodeTokens + 2; t++) {
        const feeds = feedsFor([token], cache, len);
        const t0 = now();
        const o = (await session.run(feeds)) as Record<string, Tensor>;
        token = argmax(o.logits as unknown as { type: string; data: unknown });
        const dt = now() - t0;
        if (t >= 2) step.push(dt);
        if (t === plan.decodeTokens + 1) check(`decode${n}.logits`, o);
        disposeAll(Object.values(cache));
        cache = pastFrom(o);
        len += 1;
      }
      disposeAll(Object.values(cache));
      const s = stats(step);
      const boundMs = ((graph.decodeWeightBytes + kvBytesPerToken * n) / 4.8e12) * 1000;
      decode[n] = {
        msPerToken: s,
        tokensPerSecond: round(1000 / s.median, 1),
        bandwidthBoundMsH200: round(boundMs, 4),
        overheadMs: round(s.median - boundMs, 3),
      };
    }
    disposeAll(Object.values(past));
  }
  out.metrics.ttftNoCache = ttftCold;
  out.metrics.ttftCachedPrefix = ttftCached;
  out.metrics.decode = decode;

  if (plan.cpuKvCompare && gpuOut && plan.decodeContexts.length > 0) {
    // Same decode with every present.* read back to the CPU and uploaded again next step.
    const { session: s2 } = await createSession(
      ctx,
      buildLlmGraph(plan.shape, plan.dtype, { external: 'model.onnx_data', accuracyLevel: plan.accuracyLevel }),
      0,
      `lfm2-${plan.dtype}-cpu-kv`,
    );
    const n = plan.decodeContexts[0]!;
    const p = (await s2.run(feedsFor(ids(n), emptyPast(), 0))) as Record<string, Tensor>;
    let cache = pastFrom(p);
    let len = n;
    const step: number[] = [];
    for (let t = 0; t < Math.min(plan.decodeTokens, 16) + 2; t++) {
      const t0 = now();
      const o = (await s2.run(feedsFor([5], cache, len))) as Record<string, Tensor>;
      argmax(o.logits as unknown as { type: string; data: unknown });
      if (t >= 2) step.push(now() - t0);
      cache = pastFrom(o);
      len += 1;
    }
    out.metrics.decodeCpuKv = { context: n, msPerToken: stats(step) };
    await s2.release();
  }
  await session.release();
  out.valid = out.validity.every(isValid);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Pocket TTS: text prefill + per-frame flow_lm_main → flow_lm_flow (1 LSD step) → mimi_decoder.

export interface TtsPlan {
  shape: PocketShape;
  dtype: PocketDtype;
  voicePrefix: number;
  textTokens: number;
  frames: number;
  utterances: number;
  /** WebGPU: keep the KV/conv states as GPU buffers between calls (the runtime today passes CPU tensors). */
  gpuStates: boolean;
}

export async function benchTts(ctx: BenchContext, plan: TtsPlan): Promise<StageResult> {
  const { ort } = ctx;
  const p = plan.shape;
  const act: Act = plan.dtype === 'fp16' ? 'float16' : 'float32';
  const variant = ctx.ep === 'webgpu' ? (plan.gpuStates ? 'gpu-states' : 'cpu-states') : undefined;
  const out: StageResult = {
    stage: 'tts',
    ep: ctx.ep,
    dtype: plan.dtype,
    variant,
    threads: ctx.threads,
    valid: true,
    graphs: [],
    metrics: {},
    validity: [],
  };
  const load = async (build: () => PocketGraph, name: string) => {
    const b = timed(build);
    const gpuNames =
      ctx.ep === 'webgpu' && plan.gpuStates ? b.value.states.filter((s) => s.dtype !== 'int64').map((s) => s.out) : [];
    const extra = gpuNames.length ? { preferredOutputLocation: Object.fromEntries(gpuNames.map((n) => [n, 'gpu-buffer'])) } : {};
    const { session, info } = await createSession(ctx, b.value, b.ms, name, extra);
    out.graphs.push(info);
    return { session, states: b.value.states };
  };
  const main = await load(() => buildFlowLmMain(p, plan.dtype), 'flow_lm_main');
  const flow = await load(() => buildFlowLmFlow(p, plan.dtype), 'flow_lm_flow');
  const mimi = await load(() => buildMimiDecoder(p, plan.dtype), 'mimi_decoder');
  const rnd = noise(5);
  const hd = p.d / p.heads;

  const voiceStates = (): Feeds => {
    const f: Feeds = {};
    for (const s of main.states) {
      if (s.dtype === 'int64') f[s.name] = i64(ort, [plan.voicePrefix], [1]);
      else if (s.dims[0] === 0) f[s.name] = floatTensor(ort, act, [0], () => 0);
      else {
        const slot = p.heads * hd; // [2,1,cache,h,hd]: fill the voice prefix, NaN after it
        f[s.name] = floatTensor(ort, act, s.dims, (i) => (Math.floor(i / slot) % p.cache < plan.voicePrefix ? rnd(i) : NaN));
      }
    }
    return f;
  };
  const mimiStates = (): Feeds => Object.fromEntries(mimi.states.map((s) => [s.name, floatTensor(ort, act, s.dims, () => 0)]));
  const thread = (states: { name: string; out: string }[], o: Record<string, Tensor>): Feeds =>
    Object.fromEntries(states.map((s) => [s.name, o[s.out]!]));
  const read = (t: Tensor): number[] => {
    const d = t.data as ArrayLike<number>;
    return Array.from(d, (v) => (act === 'float16' ? fromFloat16(v) : v));
  };

  const utter: {
    prefillMs: number;
    firstAudioMs: number;
    frameMs: number[];
    mainMs: number[];
    flowMs: number[];
    mimiMs: number[];
  }[] = [];
  for (let u = 0; u < plan.utterances; u++) {
    let st = voiceStates();
    let ms = mimiStates();
    const t0 = now();
    const text = floatTensor(ort, act, [1, plan.textTokens, p.d], (i) => rnd(i) * 0.5);
    const pre = (await main.session.run({
      sequence: floatTensor(ort, act, [1, 0, p.latent], () => 0),
      text_embeddings: text,
      ...st,
    })) as Record<string, Tensor>;
    const prefillMs = now() - t0;
    st = thread(main.states, pre);
    let seq = floatTensor(ort, act, [1, 1, p.latent], () => NaN);
    const emptyText = floatTensor(ort, act, [1, 0, p.d], () => 0);
    const rec = {
      prefillMs,
      firstAudioMs: 0,
      frameMs: [] as number[],
      mainMs: [] as number[],
      flowMs: [] as number[],
      mimiMs: [] as number[],
    };
    for (let f = 0; f < plan.frames; f++) {
      const f0 = now();
      const m = (await main.session.run({ sequence: seq, text_embeddings: emptyText, ...st })) as Record<string, Tensor>;
      const f1 = now();
      const prevStates = st;
      st = thread(main.states, m);
      disposeAll(Object.values(prevStates));
      const x = floatTensor(ort, act, [1, p.latent], (i) => rnd(i));
      const fl = (await flow.session.run({
        c: m.conditioning!,
        s: floatTensor(ort, act, [1, 1], () => 0),
        t: floatTensor(ort, act, [1, 1], () => 1),
        x,
      })) as Record<string, Tensor>;
      const f2 = now();
      const dir = read(fl.flow_dir!);
      const xv = read(x);
      const latent = floatTensor(ort, act, [1, 1, p.latent], (i) => xv[i]! + dir[i]!);
      const dec = (await mimi.session.run({ latent, ...ms })) as Record<string, Tensor>;
      const prevMimi = ms;
      ms = thread(mimi.states, dec);
      disposeAll(Object.values(prevMimi));
      const f3 = now();
      if (f === 0) rec.firstAudioMs = f3 - t0;
      rec.frameMs.push(f3 - f0);
      rec.mainMs.push(f1 - f0);
      rec.flowMs.push(f2 - f1);
      rec.mimiMs.push(f3 - f2);
      if (u === plan.utterances - 1 && f === plan.frames - 1) {
        out.validity.push(checkTensor('audio_frame', dec.audio_frame as unknown as { type: string; data: unknown }));
        out.validity.push(checkTensor('conditioning', m.conditioning as unknown as { type: string; data: unknown }));
        out.validity.push(checkTensor('flow_dir', fl.flow_dir as unknown as { type: string; data: unknown }));
        out.metrics.samplesPerFrame = (dec.audio_frame!.dims as number[])[2]!;
      }
      seq = latent;
    }
    disposeAll(Object.values(st));
    disposeAll(Object.values(ms));
    utter.push(rec);
  }
  const warm = utter.slice(1).length ? utter.slice(1) : utter;
  const all = (k: 'frameMs' | 'mainMs' | 'flowMs' | 'mimiMs') => warm.flatMap((u) => u[k].slice(1));
  const frame = stats(all('frameMs'));
  out.metrics.coldFirstAudioMs = round(utter[0]!.firstAudioMs, 2);
  out.metrics.firstAudioMs = stats(warm.map((u) => u.firstAudioMs));
  out.metrics.textPrefillMs = stats(warm.map((u) => u.prefillMs));
  out.metrics.frameMs = frame;
  out.metrics.flowLmMainMs = stats(all('mainMs'));
  out.metrics.flowLmFlowMs = stats(all('flowMs'));
  out.metrics.mimiMs = stats(all('mimiMs'));
  /** Real-time factor: compute time per second of audio (< 1 = faster than real time). */
  out.metrics.rtf = round(frame.median / 80, 3);
  out.metrics.timesRealtime = round(80 / frame.median, 2);
  out.metrics.plan = {
    voicePrefix: plan.voicePrefix,
    textTokens: plan.textTokens,
    frames: plan.frames,
    utterances: plan.utterances,
    lsdSteps: 1,
  };
  await main.session.release();
  await flow.session.release();
  await mimi.session.release();
  out.valid = out.validity.every(isValid);
  return out;
}

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
  /** One transcription's decoder run from BOS: one step per token, self cache fed back from present. */
  const decode = async (cross: Feeds, tokens: number) => {
    let past: Feeds = {};
    for (let l = 0; l < m.decLayers; l++) {
      past[`past.${l}.key`] = floatTensor(ort, 'float32', [1, m.heads, 0, hd], () => 0);
      past[`past.${l}.value`] = floatTensor(ort, 'float32', [1, m.heads, 0, hd], () => 0);
    }
    const steps: number[] = [];
    let token = 1;
    let last: Record<string, Tensor> = {};
    const d0 = now();
    for (let t = 0; t < tokens; t++) {
      const s0 = now();
      const o = (await dec.session.run({ input_ids: i64(ort, [token], [1, 1]), ...past, ...cross })) as Record<string, Tensor>;
      token = argmax(o.logits as unknown as { type: string; data: unknown });
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
    disposeAll(Object.values(eo));
    out.validity.push(checkTensor(`decoder${sec}s.logits`, last.logits as unknown as { type: string; data: unknown }));
    const encMs = stats(times).median;
    perLength.push({
      seconds: sec,
      encoderFrames: encoderFrames(samples),
      encoderFirstEncounterMs: round(firstMs, 2),
      encoderMs: stats(times),
      decoderTokens: tokens,
      decoderStepMs: stats(steps.slice(1)),
      decoderFirstStepMs: round(steps[0]!, 2),
      totalMs: round(encMs + decodeMs, 2),
      msPerAudioSecond: round((encMs + decodeMs) / sec, 2),
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
