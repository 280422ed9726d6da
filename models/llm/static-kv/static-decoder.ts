/**
 * One greedy decode step at a time through the static-KV twin of the LLM graph (docs/llm-static-kv.md): the plain
 * graph's cache goes in once after a prefill (each KV tensor copied into a capacity-sized buffer), each step feeds one
 * token and its position, and the cache comes out again in the plain graph's layout, cut back to the positions it
 * covers, for the next turn's prefill. This file: the common contract and the host-memory decoder (CPU / WASM, no
 * capture); gpu-static-decoder.ts keeps every buffer on the GPU and replays a captured graph.
 */
import type * as OrtNs from 'onnxruntime-common';
import { STATIC_INPUTS } from './rewrite';

export type OrtTensor = OrtNs.Tensor;
export type OrtSession = OrtNs.InferenceSession;
export type Feeds = Record<string, OrtTensor>;
/** The parts of an onnxruntime namespace the decoders use (the instance transformers.js runs on). */
export interface OrtClasses {
  Tensor: typeof OrtNs.Tensor;
  InferenceSession: { create(model: Uint8Array, options?: OrtNs.InferenceSession.SessionOptions): Promise<OrtSession> };
}

export interface StaticDecoder {
  /** 'captured': one recorded GPU graph replayed per step; 'static': the same graph run normally. */
  readonly mode: 'captured' | 'static';
  readonly capacity: number;
  /** Takes the plain cache (`past_conv.*`, `past_key_values.*`, covering `pos` positions) into the static buffers. */
  load(cache: Readonly<Feeds>, pos: number): Promise<void>;
  /** Feeds `token` at position `pos`; returns the step's logits (float32, one row). */
  step(token: number, pos: number): Promise<Float32Array>;
  /** The cache in the plain graph's layout covering the first `length` positions (new tensors, owned by the caller). */
  exportCache(length: number): Promise<Feeds>;
  release(): Promise<void>;
}

export const isKv = (name: string): boolean => name.startsWith('past_key_values.');
export const isState = (name: string): boolean => isKv(name) || name.startsWith('past_conv.');
export const presentOf = (past: string): string =>
  past.replace(/^past_conv\./, 'present_conv.').replace(/^past_key_values\./, 'present.');

type Floats = Float32Array | Uint16Array;

function floatsOf(t: OrtTensor): Floats {
  if (t.type !== 'float32' && t.type !== 'float16') throw new Error(`cache tensor of type ${t.type}`);
  return t.data as Floats;
}

const like = (src: Floats, n: number): Floats => (src instanceof Uint16Array ? new Uint16Array(n) : new Float32Array(n));

/** Copies the first `length` positions of each head of a [1, h, from, d] cache into a [1, h, to, d] one. */
export function reshapeCache(ort: OrtClasses, t: OrtTensor, to: number, length: number): OrtTensor {
  const [, h, from, d] = t.dims as [number, number, number, number];
  const src = floatsOf(t);
  const out = like(src, h * to * d);
  for (let i = 0; i < h; i++) out.set(src.subarray(i * from * d, i * from * d + length * d), i * to * d);
  return new ort.Tensor(t.type as 'float32', out as Float32Array, [1, h, to, d]);
}

/** The inputs of one static step besides the states. */
export function stepFeeds(ort: OrtClasses, inputNames: readonly string[], token: number, pos: number): Feeds {
  const f: Feeds = {
    input_ids: new ort.Tensor('int64', BigInt64Array.of(BigInt(token)), [1, 1]),
    [STATIC_INPUTS.seqlensK]: new ort.Tensor('int32', Int32Array.of(pos), [1]),
    [STATIC_INPUTS.totalSequenceLength]: new ort.Tensor('int32', Int32Array.of(pos + 1), [1]),
  };
  if (inputNames.includes('position_ids')) f.position_ids = new ort.Tensor('int64', BigInt64Array.of(BigInt(pos)), [1, 1]);
  return f;
}

/** The last row of a [1, s, vocab] float32 logits tensor. */
export function lastLogits(t: OrtTensor): Float32Array {
  if (t.type !== 'float32') throw new Error(`logits of type ${t.type}`);
  const v = t.dims.at(-1)!;
  const data = t.data as Float32Array;
  return Float32Array.from(data.subarray(data.length - v));
}

/** Host tensors, a plain session over the rewritten graph: the static path where there is no GPU to capture on. */
export class HostStaticDecoder implements StaticDecoder {
  readonly mode = 'static';
  private state: Feeds = {};

  constructor(
    private readonly ort: OrtClasses,
    private readonly session: OrtSession,
    readonly capacity: number,
  ) {}

  async load(cache: Readonly<Feeds>, pos: number): Promise<void> {
    const state: Feeds = {};
    for (const name of this.session.inputNames.filter(isState)) {
      const t = cache[name];
      if (!t) throw new Error(`the plain cache has no ${name}`);
      const data = t.location === 'cpu' ? t : await downloaded(this.ort, t);
      state[name] = isKv(name) ? reshapeCache(this.ort, data, this.capacity, pos) : data;
    }
    this.state = state;
  }

  async step(token: number, pos: number): Promise<Float32Array> {
    const out = await this.session.run({ ...stepFeeds(this.ort, this.session.inputNames, token, pos), ...this.state });
    const next: Feeds = {};
    for (const name of Object.keys(this.state)) next[name] = out[presentOf(name)]!;
    this.state = next;
    return lastLogits(out.logits!);
  }

  async exportCache(length: number): Promise<Feeds> {
    const out: Feeds = {};
    for (const [name, t] of Object.entries(this.state)) {
      const src = floatsOf(t);
      out[name] = isKv(name)
        ? reshapeCache(this.ort, t, length, length)
        : new this.ort.Tensor(t.type as 'float32', src.slice() as Float32Array, t.dims);
    }
    return out;
  }

  async release(): Promise<void> {
    this.state = {};
    await this.session.release();
  }
}

async function downloaded(ort: OrtClasses, t: OrtTensor): Promise<OrtTensor> {
  const data = (await t.getData()) as Float32Array;
  return new ort.Tensor(t.type as 'float32', data, t.dims);
}
