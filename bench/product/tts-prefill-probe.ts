/**
 * What a Pocket TTS text prefill costs as a function of its length, and whether splitting it changes the state:
 * the question behind prefilling the first sentence while the LLM is still writing it (docs/benchmarks.md).
 *
 * - `fromVoice[n]`: text_conditioner + one flow_lm_main prefill of n tokens, starting from the voice's host states
 *   (what a chunk pays today before its first frame).
 * - `continued[n]`: the same n tokens prefilled after 8 tokens already in the cache (states as the previous call
 *   left them: on the GPU for WebGPU), i.e. the tail of a sentence whose head was prefilled earlier.
 * - `step`: one generation step (flow_lm_main with one latent), for scale.
 * - `splitMaxAbsDiff`: the largest difference in the first step's `conditioning` between one 16-token prefill and
 *   8 + 8, on the same weights (0 would be bit-identical; float rounding differs with the shapes).
 */
import type { PocketModel, Voice } from '../../models/tts/pocket/model';
import { releaseStates, threadStates, toOrt, voiceToFlowHostStates, type Feeds } from '../../models/tts/pocket/state';
import type { OrtTensorLike } from '../../models/tts/pocket/ort-types';
import { r1 } from './loop-timing';

const LENGTHS = [1, 2, 4, 8, 16];
const REPEATS = 5;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export interface PrefillProbe {
  fromVoice: Record<number, number>;
  continued: Record<number, number>;
  step: number;
  splitMaxAbsDiff: number;
}

export async function probePrefill(model: PocketModel, voice: Voice): Promise<PrefillProbe> {
  const { ort, bundle } = model;
  const manifest = bundle.flow_lm_state_manifest;
  const host = voiceToFlowHostStates(manifest, voice.tensors);
  const voiceFeeds = (): Feeds => Object.fromEntries(manifest.map((e, i) => [e.input_name, toOrt(ort, host[i]!)]));
  const ids = (n: number, from = 0) =>
    new ort.Tensor(
      'int64',
      BigInt64Array.from({ length: n }, (_, i) => BigInt(5 + (((from + i) * 37) % 200))),
      [1, n],
    );
  const D = bundle.latent_dim;
  const emptySeq = new ort.Tensor('float32', new Float32Array(0), [1, 0, D]);
  const emptyText = new ort.Tensor('float32', new Float32Array(0), [1, 0, bundle.conditioning_dim]);
  const prefill = async (states: Feeds, n: number, from = 0): Promise<Feeds> => {
    const te = (await model.session('text_conditioner').run({ token_ids: ids(n, from) })).embeddings!;
    const out = await model.session('flow_lm_main').run({ sequence: emptySeq, text_embeddings: te, ...states });
    return threadStates(manifest, out);
  };
  const firstConditioning = async (states: Feeds): Promise<Float32Array> => {
    const bos = new ort.Tensor('float32', new Float32Array(D).fill(NaN), [1, 1, D]);
    const o = await model.session('flow_lm_main').run({ sequence: bos, text_embeddings: emptyText, ...states });
    releaseStates(threadStates(manifest, o));
    const c = o.conditioning as OrtTensorLike & { getData?: () => Promise<unknown> };
    return Float32Array.from((c.getData ? await c.getData() : c.data) as Float32Array);
  };
  const timed = async (f: () => Promise<Feeds>): Promise<number> => {
    const t0 = performance.now();
    const states = await f();
    const ms = performance.now() - t0;
    releaseStates(states);
    return ms;
  };

  const fromVoice: Record<number, number> = {};
  const continued: Record<number, number> = {};
  for (const n of LENGTHS) {
    await timed(() => prefill(voiceFeeds(), n)); // shapes new to the session: not counted
    const a: number[] = [];
    for (let r = 0; r < REPEATS; r++) a.push(await timed(() => prefill(voiceFeeds(), n)));
    fromVoice[n] = r1(median(a));
    const head = await prefill(voiceFeeds(), 8);
    await timed(() => prefill(head, n, 8));
    const b: number[] = [];
    for (let r = 0; r < REPEATS; r++) b.push(await timed(() => prefill(head, n, 8)));
    continued[n] = r1(median(b));
    releaseStates(head);
  }

  const head = await prefill(voiceFeeds(), 8);
  const stepMs: number[] = [];
  for (let r = 0; r < REPEATS + 1; r++) {
    const t0 = performance.now();
    await firstConditioning(head);
    if (r > 0) stepMs.push(performance.now() - t0);
  }
  const whole = await prefill(voiceFeeds(), 16);
  const split = await prefill(head, 8, 8);
  const [cw, cs] = [await firstConditioning(whole), await firstConditioning(split)];
  let diff = 0;
  for (let i = 0; i < cw.length; i++) diff = Math.max(diff, Math.abs(cw[i]! - cs[i]!));
  for (const s of [head, whole, split]) releaseStates(s);
  return { fromVoice, continued, step: r1(median(stepMs)), splitMaxAbsDiff: diff };
}
