/**
 * The Pocket TTS stage bench (split from stage-bench.ts, which re-exports it): first audio and real-time factor of
 * text prefill plus per-frame flow_lm_main → flow_lm_flow → mimi_decoder. Every run's outputs are checked; a
 * non-finite or all-zero output marks the result invalid.
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
import { checkTensor, isValid, now, round, stats } from './measure';
import { fromFloat16, type Act } from './onnx-graph';
import {
  buildFlowLmFlow,
  buildFlowLmMain,
  buildMimiDecoder,
  type PocketDtype,
  type PocketGraph,
  type PocketShape,
} from './pocket-graphs';

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
