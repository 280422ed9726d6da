/**
 * Greedy decoding of an LFM2 graph through the plain graph (growing KV cache, mask and positions as transformers.js
 * feeds them) or through its static-KV rewrite (models/llm/static-kv) after the same plain prefill (capacity-sized KV
 * buffers, lengths fed directly), so the two can be compared step by step. Any onnxruntime flavour (node in the unit
 * tests, web on WASM or WebGPU in the stage bench); states as host tensors.
 */
import type * as OrtNs from 'onnxruntime-common';

type Ort = { Tensor: typeof OrtNs.Tensor };
type Session = OrtNs.InferenceSession;
type Tensor = OrtNs.Tensor;
type Feeds = Record<string, Tensor>;

export interface DecodeShape {
  hidden: number;
  convL: number;
  kvHeads: number;
  headDim: number;
  /** Cache dtype: the graph's activation dtype. */
  act: 'float32' | 'float16';
}

export interface DecodeTrace {
  tokens: number[];
  /** Logits of every decode step (the prefill's last row not included). */
  logits: Float32Array[];
  /** The caches after the last step (in the decoding graph's layout), covering prompt + steps positions. */
  state: Feeds;
}

const i64 = (ort: Ort, values: number[], dims: number[]) => new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims);
const i32 = (ort: Ort, v: number) => new ort.Tensor('int32', Int32Array.of(v), [1]);

export function argmax(x: Float32Array): number {
  let best = 0;
  for (let i = 1; i < x.length; i++) if (x[i]! > x[best]!) best = i;
  return best;
}

function lastRow(t: Tensor): Float32Array {
  const v = t.dims[2]!;
  const data = t.data as Float32Array;
  return Float32Array.from(data.subarray(data.length - v));
}

/** Empty caches in the plain graph's layout. */
function freshState(ort: Ort, session: Session, d: DecodeShape): Feeds {
  const out: Feeds = {};
  const zeros = (n: number) => (d.act === 'float16' ? new Uint16Array(n) : new Float32Array(n));
  for (const name of session.inputNames) {
    if (name.startsWith('past_conv.')) out[name] = new ort.Tensor(d.act, zeros(d.hidden * d.convL), [1, d.hidden, d.convL]);
    if (name.startsWith('past_key_values.')) out[name] = new ort.Tensor(d.act, zeros(0), [1, d.kvHeads, 0, d.headDim]);
  }
  return out;
}

const pastOf = (present: string) => present.replace(/^present_conv\./, 'past_conv.').replace(/^present\./, 'past_key_values.');

function carry(out: Record<string, Tensor>): Feeds {
  const next: Feeds = {};
  for (const [name, t] of Object.entries(out)) if (name.startsWith('present')) next[pastOf(name)] = t;
  return next;
}

/** Feeds of the plain graph for `ids` starting at position `pos`. */
function plainFeeds(ort: Ort, session: Session, ids: number[], pos: number): Feeds {
  const total = pos + ids.length;
  const f: Feeds = {
    input_ids: i64(ort, ids, [1, ids.length]),
    attention_mask: i64(ort, new Array<number>(total).fill(1), [1, total]),
  };
  if (session.inputNames.includes('position_ids'))
    f.position_ids = i64(
      ort,
      ids.map((_, i) => pos + i),
      [1, ids.length],
    );
  if (session.inputNames.includes('num_logits_to_keep')) f.num_logits_to_keep = i64(ort, [1], []);
  return f;
}

/** Prefill `prompt` with the plain graph; returns its first greedy token and the state after it. */
export async function prefill(ort: Ort, plain: Session, shape: DecodeShape, prompt: number[]) {
  const out = (await plain.run({ ...plainFeeds(ort, plain, prompt, 0), ...freshState(ort, plain, shape) })) as Record<
    string,
    Tensor
  >;
  return { token: argmax(lastRow(out.logits!)), state: carry(out) };
}

export async function decodePlain(
  ort: Ort,
  plain: Session,
  shape: DecodeShape,
  prompt: number[],
  steps: number,
  stepMs?: number[],
): Promise<DecodeTrace> {
  const first = await prefill(ort, plain, shape, prompt);
  return continuePlain(ort, plain, first.state, first.token, prompt.length, steps, stepMs);
}

/** Greedy steps with the plain graph from `start` (covering `pos` positions), `firstToken` the next one to feed. */
export async function continuePlain(
  ort: Ort,
  plain: Session,
  start: Feeds,
  firstToken: number,
  pos: number,
  steps: number,
  stepMs?: number[],
): Promise<DecodeTrace> {
  return greedySteps(plain, start, firstToken, steps, (token, t) => plainFeeds(ort, plain, [token], pos + t), stepMs);
}

/** `steps` greedy tokens from `firstToken`, each run with `feeds(token, step)` and the state the last step left. */
async function greedySteps(
  session: Session,
  start: Feeds,
  firstToken: number,
  steps: number,
  feeds: (token: number, step: number) => Feeds,
  stepMs?: number[],
): Promise<DecodeTrace> {
  let token = firstToken;
  let state = start;
  const trace: DecodeTrace = { tokens: [token], logits: [], state };
  for (let t = 0; t < steps; t++) {
    const t0 = performance.now();
    const out = (await session.run({ ...feeds(token, t), ...state })) as Record<string, Tensor>;
    stepMs?.push(performance.now() - t0);
    const logits = lastRow(out.logits!);
    trace.logits.push(logits);
    token = argmax(logits);
    trace.tokens.push(token);
    state = carry(out);
  }
  trace.state = state;
  return trace;
}

/**
 * Prefills `ids` with the plain graph on top of `state` (covering `pos` positions): a later turn continuing a cached
 * prefix, as the runtime's prefix cache does. Returns the greedy token after them and the new state.
 */
export async function prefillOnTop(ort: Ort, plain: Session, state: Feeds, ids: number[], pos: number) {
  const out = (await plain.run({ ...plainFeeds(ort, plain, ids, pos), ...state })) as Record<string, Tensor>;
  return { token: argmax(lastRow(out.logits!)), logits: lastRow(out.logits!), state: carry(out) };
}

/** The first `length` positions of a [1, h, capacity, d] cache: the plain graph's layout again. */
export function unpadCache(ort: Ort, t: Tensor, length: number): Tensor {
  const [, h, capacity, d] = t.dims as [number, number, number, number];
  const src = t.data as Float32Array | Uint16Array;
  const out = src instanceof Uint16Array ? new Uint16Array(h * length * d) : new Float32Array(h * length * d);
  for (let i = 0; i < h; i++) out.set(src.subarray(i * capacity * d, i * capacity * d + length * d), i * length * d);
  return new ort.Tensor(t.type as 'float32', out as Float32Array, [1, h, length, d]);
}

/** A static decode's state in the plain graph's layout, covering `length` positions. */
export function toPlainState(ort: Ort, state: Feeds, length: number): Feeds {
  return Object.fromEntries(
    Object.entries(state).map(([k, t]) => [k, k.startsWith('past_key_values.') ? unpadCache(ort, t, length) : t]),
  );
}

/** Copies a [1, h, n, d] cache into a zeroed [1, h, capacity, d] buffer of the same dtype. */
export function padCache(ort: Ort, t: Tensor, capacity: number): Tensor {
  const [, h, n, d] = t.dims as [number, number, number, number];
  const src = t.data as Float32Array | Uint16Array;
  const out = src instanceof Uint16Array ? new Uint16Array(h * capacity * d) : new Float32Array(h * capacity * d);
  for (let i = 0; i < h; i++) out.set(src.subarray(i * n * d, (i + 1) * n * d), i * capacity * d);
  return new ort.Tensor(t.type as 'float32', out as Float32Array, [1, h, capacity, d]);
}

/** The static graph's feeds for one token at position `pos` (states added by the caller). */
export function staticFeeds(ort: Ort, session: Session, token: number, pos: number): Feeds {
  const f: Feeds = {
    input_ids: i64(ort, [token], [1, 1]),
    seqlens_k: i32(ort, pos),
    total_sequence_length: i32(ort, pos + 1),
  };
  if (session.inputNames.includes('position_ids')) f.position_ids = i64(ort, [pos], [1, 1]);
  return f;
}

export async function decodeStatic(
  ort: Ort,
  plain: Session,
  rewritten: Session,
  shape: DecodeShape,
  prompt: number[],
  steps: number,
  capacity: number,
  stepMs?: number[],
): Promise<DecodeTrace> {
  const first = await prefill(ort, plain, shape, prompt);
  const state: Feeds = Object.fromEntries(
    Object.entries(first.state).map(([k, t]) => [k, k.startsWith('past_key_values.') ? padCache(ort, t, capacity) : t]),
  );
  const feeds = (token: number, t: number) => staticFeeds(ort, rewritten, token, prompt.length + t);
  return greedySteps(rewritten, state, first.token, steps, feeds, stepMs);
}

export function maxAbsDiff(a: Float32Array[], b: Float32Array[]): number {
  let d = 0;
  a.forEach((x, s) => x.forEach((v, i) => (d = Math.max(d, Math.abs(v - b[s]![i]!)))));
  return d;
}
