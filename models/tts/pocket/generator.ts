/**
 * The Pocket TTS generation loop (pocket-tts.md §4): per chunk, restart from the voice state, prefill the text,
 * then autoregress flow_lm_main → one LSD flow step (flow_lm_flow) → mimi_decoder, yielding every 80 ms frame as soon
 * as it exists. The async generator is pull-based: frame k+1 is not computed before frame k has been taken, so a
 * consumer that posts frames immediately streams them, and an abort is seen before the next model call.
 */
import { BackendGuard, type TtsBackend } from '../../../core/tts/backend-guard';
import { planChunks, type TextChunk } from '../../../core/tts/chunking';
import { maxFramesForTokens } from '../../../core/tts/text-prep';
import type { HostTensor } from '../../../core/tts/tensor-data';
import { ttsTunables } from '../../../core/tunables';
import type { PocketModel, Voice } from './model';
import type { StateEntry } from '../../../core/tts/bundle-manifest';
import {
  freshHostState,
  freshStates,
  releaseStates,
  stateData,
  threadStates,
  toOrt,
  voicePrefixLength,
  voiceToFlowHostStates,
  type Feeds,
} from './state';
import { withCacheCapacity } from './flow-capacity';

export interface AudioFrame {
  /** 1920 samples of 24 kHz mono PCM. */
  pcm: Float32Array;
  /** Index over the whole utterance (all chunks). */
  frameIndex: number;
  chunkIndex: number;
  /** The prepared text of the chunk this frame belongs to. */
  text: string;
}

export interface StepInfo {
  chunkIndex: number;
  step: number;
  eosLogit: number;
  latent: Float32Array;
}

export interface SynthesizeOptions {
  signal?: AbortSignal;
  temperature?: number;
  lsdSteps?: number;
  eosThreshold?: number;
  maxFramesPerChunk?: number;
  decodeBatchFrames?: number;
  /** Keep mimi_decoder state from one chunk to the next (upstream starts each chunk fresh). */
  carryDecoderStateAcrossChunks?: boolean;
  /** Uniform [0,1) source for the sampling noise; seed it for reproducible output. */
  random?: () => number;
  /** Called after each flow_lm_main step (progress, debugging, tests). */
  onStep?: (info: StepInfo) => void;
  /** Inspect frames for NaN/Inf/overflow (default true). The self-test turns it off to judge raw output. */
  guardFrames?: boolean;
  /** Use the model's separate Mimi decoder when it has one (default true; false = the single-instance loop). */
  overlapDecode?: boolean;
  /** Called when a bad WebGPU frame moved the session to WASM. */
  onBackendSwitch?: (info: { to: TtsBackend; reason: string; frameIndex: number }) => void;
}

export class SynthesisError extends Error {
  override name = 'SynthesisError';
}

function abortError(): Error {
  return new DOMException('speech cancelled', 'AbortError');
}

function throwIfAborted(signal?: AbortSignal) {
  if (signal?.aborted) throw abortError();
}

/** Standard normal via Box–Muller (the JS drivers do the same). */
function gaussian(random: () => number): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

const voiceStateCache = new WeakMap<Map<string, HostTensor>, { capacity: number; states: HostTensor[] }>();

/**
 * Voice prefix → flow-LM feeds with caches of `capacity` slots. ORT never writes into its inputs, so they are built
 * once per voice and capacity (the last one is kept): on the GPU when the flow LM runs there (gpu-inputs.ts, always
 * the declared capacity), else as host arrays.
 */
function voiceFeeds(model: PocketModel, voice: Voice, capacity: number): Feeds {
  const manifest = model.bundle.flow_lm_state_manifest;
  if (model.gpuInputs) {
    const host = () => voiceToFlowHostStates(manifest, voice.tensors);
    return model.gpuInputs.feeds(voice.tensors, inputNames(manifest), host);
  }
  let cached = voiceStateCache.get(voice.tensors);
  if (cached?.capacity !== capacity) {
    const sized = capacity === cacheCapacity(model) ? manifest : withCacheCapacity(manifest, capacity);
    voiceStateCache.set(voice.tensors, (cached = { capacity, states: voiceToFlowHostStates(sized, voice.tensors) }));
  }
  const feeds: Feeds = {};
  manifest.forEach((e, i) => (feeds[e.input_name] = toOrt(model.ort, cached.states[i]!)));
  return feeds;
}

/**
 * Cache slots for a chunk: the declared capacity, or on a WASM flow LM that takes chunk-sized caches the voice
 * prefix + the chunk's tokens + its frame budget (flow-capacity.ts); the frame budget is the same either way.
 */
function chunkCapacity(model: PocketModel, voice: Voice, tokens: number, maxFramesPerChunk: number): number {
  const declared = cacheCapacity(model);
  if (!model.chunkSizedCache || model.gpuInputs) return declared;
  const prefix = voicePrefixLength(model.bundle.flow_lm_state_manifest, voice.tensors);
  return Math.min(declared, prefix + tokens + maxFramesForTokens(tokens, model.bundle.frame_rate, maxFramesPerChunk));
}

/** Mimi's states at the start of a chunk: the manifest's fills (uploaded once on WebGPU). */
function freshMimiFeeds(model: PocketModel): Feeds {
  const manifest = model.bundle.mimi_state_manifest;
  if (model.gpuInputs) return model.gpuInputs.feeds(manifest, inputNames(manifest), () => manifest.map(freshHostState));
  return freshStates(model.ort, manifest);
}

const inputNames = (manifest: readonly StateEntry[]) => manifest.map((e) => e.input_name);

async function stepOfFeeds(model: PocketModel, feeds: Feeds): Promise<number> {
  const e = model.bundle.flow_lm_state_manifest.find((m) => m.key === 'step');
  return e ? Number(((await stateData(feeds[e.input_name]!)) as BigInt64Array)[0]) : 0;
}

function cacheCapacity(model: PocketModel): number {
  const e = model.bundle.flow_lm_state_manifest.find((m) => m.key === 'cache');
  return e?.shape[2] ?? Infinity;
}

export function chunksFor(model: PocketModel, text: string, maxTokens = ttsTunables.maxTokensPerChunk): TextChunk[] {
  const b = model.bundle;
  return planChunks(model.tokenizer, text, {
    padWithSpacesForShortInputs: b.pad_with_spaces_for_short_inputs,
    removeSemicolons: b.remove_semicolons,
    maxTokens: Math.min(maxTokens, b.max_token_per_chunk),
    modelRecommendedFramesAfterEos: b.model_recommended_frames_after_eos,
  });
}

/** Restart request raised inside a chunk when the guard moved the session from WebGPU to WASM. */
class RestartChunk {
  constructor(readonly emitted: number) {}
}

export async function* synthesize(
  model: PocketModel,
  text: string,
  voice: Voice,
  opts: SynthesizeOptions = {},
): AsyncGenerator<AudioFrame> {
  const { ort, bundle } = model;
  const t = ttsTunables;
  const temperature = opts.temperature ?? t.temperature;
  const lsdSteps = opts.lsdSteps ?? t.lsdSteps;
  const eosThreshold = opts.eosThreshold ?? t.eosThreshold;
  const batch = opts.decodeBatchFrames ?? t.decodeBatchFrames;
  const random = opts.random ?? Math.random;
  const spf = bundle.samples_per_frame;
  const D = bundle.latent_dim;
  const guard = new BackendGuard(model.backend, () => t.selfTestMaxPeak);
  const emptySeq = new ort.Tensor('float32', new Float32Array(0), [1, 0, D]);
  const emptyText = new ort.Tensor('float32', new Float32Array(0), [1, 0, bundle.conditioning_dim]);
  let frameIndex = 0;
  let mimiCarry: Feeds | null = null;
  // Mimi in its own ORT instance (WASM only): it decodes frame n while the flow LM computes frame n+1.
  const remote = model.backend === 'wasm' && opts.overlapDecode !== false ? model.separateDecoder : null;

  const chunks = chunksFor(model, text);
  for (let chunkIndex = 0; chunkIndex < chunks.length; chunkIndex++) {
    const chunk = chunks[chunkIndex]!;
    const mimiAtStart = opts.carryDecoderStateAcrossChunks && mimiCarry ? mimiCarry : null;
    let skip = 0; // frames of this chunk already played before a backend restart
    for (;;) {
      throwIfAborted(opts.signal);
      let emittedInChunk = 0;
      // States of this attempt; on WebGPU they live on the GPU and are freed as soon as the next step replaces them.
      let flow: Feeds = {};
      let mimi: Feeds = {};
      let keepMimi = false;
      // Decodes sent to the separate decoder and not yet emitted, oldest first.
      const inflight: Promise<{ audio: Float32Array; n: number } | null>[] = [];
      let freshDecoder = !(opts.carryDecoderStateAcrossChunks && chunkIndex > 0);
      try {
        // Prefill: text after the voice prefix, starting from a fresh copy of the voice state.
        const ids = new ort.Tensor('int64', BigInt64Array.from(chunk.ids.map(BigInt)), [1, chunk.ids.length]);
        const te = (await model.session('text_conditioner').run({ token_ids: ids })).embeddings!;
        const frameCap = opts.maxFramesPerChunk ?? t.maxFramesPerChunk;
        const capacity = chunkCapacity(model, voice, chunk.ids.length, frameCap);
        const prefill = await model
          .session('flow_lm_main')
          .run({ sequence: emptySeq, text_embeddings: te, ...voiceFeeds(model, voice, capacity) });
        flow = threadStates(bundle.flow_lm_state_manifest, prefill);
        mimi = mimiAtStart ?? freshMimiFeeds(model);
        const room = capacity - (await stepOfFeeds(model, flow));
        const maxFrames = Math.min(maxFramesForTokens(chunk.ids.length, bundle.frame_rate, frameCap), room);
        let x = new Float32Array(D).fill(NaN); // NaN = BOS: the graph swaps in its learned bos_emb
        let eosStep: number | null = null;
        const pending: Float32Array[] = [];

        /** Guard, skip (after a restart), abort check and yield for `n` decoded frames. */
        const emit = async function* (audio: Float32Array, n: number): AsyncGenerator<AudioFrame> {
          for (let k = 0; k < n; k++) {
            const pcm = audio.slice(k * spf, (k + 1) * spf);
            const decision = opts.guardFrames === false ? ({ action: 'play' } as const) : guard.inspect(pcm, frameIndex);
            if (decision.action === 'switch') {
              opts.onBackendSwitch?.({ to: decision.to, reason: decision.reason, frameIndex });
              // GPU tensors must be freed while the sessions that own them still exist.
              releaseStates(flow);
              releaseStates(mimi);
              flow = {};
              mimi = {};
              await model.switchToWasm();
              throw new RestartChunk(emittedInChunk);
            }
            if (decision.action === 'fail') throw new SynthesisError(decision.reason);
            if (emittedInChunk++ < skip) continue;
            throwIfAborted(opts.signal);
            yield { pcm, frameIndex: frameIndex++, chunkIndex, text: chunk.text };
          }
        };

        const decode = async function* (): AsyncGenerator<AudioFrame> {
          if (pending.length === 0) return;
          const n = pending.length;
          const latent = new Float32Array(n * D);
          pending.forEach((p, i) => latent.set(p, i * D));
          pending.length = 0;
          // Overlapped: the decoder works while the flow LM computes the next steps; frames leave in order.
          const send = (firstAudio: boolean) => {
            const sent = remote!.decode(latent, n, freshDecoder);
            freshDecoder = false;
            inflight.push(sent.then((d) => (firstAudio ? null : { audio: d.pcm, n })));
            inflight.at(-1)!.catch(() => {}); // awaited below, or dropped on abort
          };
          // The utterance's first frame is decoded here, as the single-instance loop does, so first audio neither waits
          // on nor shares the CPU with the other instance; sent after, it only advances the decoder's states.
          const firstAudio = frameIndex === 0 && inflight.length === 0;
          if (remote && !firstAudio) {
            send(false);
            while (inflight.length > t.decodeAheadFrames) yield* emitDecoded();
            return;
          }
          const out = await model.session('mimi_decoder').run({ latent: new ort.Tensor('float32', latent, [1, n, D]), ...mimi });
          const nextMimi = threadStates(bundle.mimi_state_manifest, out);
          releaseStates(mimi);
          mimi = nextMimi;
          if (remote) send(true);
          yield* emit(out.audio_frame!.data as Float32Array, n);
        };

        const emitDecoded = async function* (): AsyncGenerator<AudioFrame> {
          let d: { audio: Float32Array; n: number } | null;
          try {
            d = await inflight.shift()!;
          } catch (e) {
            if ((e as Error).name === 'AbortError') throw e;
            model.dropSeparateDecoder((e as Error).message);
            throw new SynthesisError(`separate Mimi decoder failed: ${(e as Error).message}`);
          }
          if (d) yield* emit(d.audio, d.n);
        };

        for (let step = 0; step < maxFrames; step++) {
          throwIfAborted(opts.signal);
          const o = await model
            .session('flow_lm_main')
            .run({ sequence: new ort.Tensor('float32', x, [1, 1, D]), text_embeddings: emptyText, ...flow });
          const eosLogit = (o.eos_logit!.data as Float32Array)[0]!;
          if (eosLogit > eosThreshold && eosStep === null) eosStep = step;
          if (eosStep !== null && step >= eosStep + chunk.framesAfterEos) break;
          const c = o.conditioning!;
          const next = new Float32Array(D);
          const std = Math.sqrt(temperature);
          if (std > 0) for (let i = 0; i < D; i++) next[i] = std * gaussian(random);
          for (let j = 0; j < lsdSteps; j++) {
            const f = await model.session('flow_lm_flow').run({
              c,
              s: new ort.Tensor('float32', Float32Array.of(j / lsdSteps), [1, 1]),
              t: new ort.Tensor('float32', Float32Array.of((j + 1) / lsdSteps), [1, 1]),
              x: new ort.Tensor('float32', next.slice(), [1, D]),
            });
            const dir = f.flow_dir!.data as Float32Array;
            for (let i = 0; i < D; i++) next[i]! += dir[i]! / lsdSteps;
          }
          const nextFlow = threadStates(bundle.flow_lm_state_manifest, o);
          releaseStates(flow);
          flow = nextFlow;
          opts.onStep?.({ chunkIndex, step, eosLogit, latent: next });
          x = next;
          pending.push(next);
          if (pending.length >= batch) yield* decode();
        }
        yield* decode();
        while (inflight.length) yield* emitDecoded();
        if (opts.carryDecoderStateAcrossChunks) {
          mimiCarry = mimi;
          keepMimi = true;
        }
        break;
      } catch (e) {
        if (e instanceof RestartChunk) {
          skip = Math.max(skip, e.emitted);
          continue;
        }
        throw e;
      } finally {
        // Also on abort (the consumer stopped pulling) and on a backend restart.
        if (inflight.length) remote?.dropPending();
        inflight.length = 0;
        releaseStates(flow);
        if (!keepMimi && mimi !== mimiAtStart) releaseStates(mimi);
      }
    }
  }
}
