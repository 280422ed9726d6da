// Greedy decoding of an LFM2 graph on onnxruntime-node, through the plain graph (growing KV cache, mask and
// positions as transformers.js feeds them) or through its static-KV rewrite after a plain prefill (capacity-sized KV
// buffers, lengths fed directly), so the two can be compared step by step.
import * as ort from 'onnxruntime-node';

type Feeds = Record<string, ort.Tensor>;

export interface DecodeTrace {
  tokens: number[];
  /** Logits of every decode step (the prefill's last row not included). */
  logits: Float32Array[];
}

const i64 = (values: number[], dims: number[]) => new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), dims);
const i32 = (v: number) => new ort.Tensor('int32', Int32Array.of(v), [1]);
const ones = (n: number) => i64(new Array<number>(n).fill(1), [1, n]);

function argmax(x: Float32Array): number {
  let best = 0;
  for (let i = 1; i < x.length; i++) if (x[i]! > x[best]!) best = i;
  return best;
}

function lastRow(t: ort.Tensor): Float32Array {
  const v = t.dims[2]!;
  const data = t.data as Float32Array;
  return Float32Array.from(data.subarray(data.length - v));
}

/** Empty caches in the plain graph's layout. */
function freshState(
  session: ort.InferenceSession,
  dims: { hidden: number; convL: number; kvHeads: number; headDim: number },
): Feeds {
  const out: Feeds = {};
  for (const name of session.inputNames) {
    if (name.startsWith('past_conv.'))
      out[name] = new ort.Tensor('float32', new Float32Array(dims.hidden * dims.convL), [1, dims.hidden, dims.convL]);
    if (name.startsWith('past_key_values.'))
      out[name] = new ort.Tensor('float32', new Float32Array(0), [1, dims.kvHeads, 0, dims.headDim]);
  }
  return out;
}

const pastOf = (present: string) => present.replace(/^present_conv\./, 'past_conv.').replace(/^present\./, 'past_key_values.');

function carry(out: ort.InferenceSession.OnnxValueMapType): Feeds {
  const next: Feeds = {};
  for (const [name, t] of Object.entries(out)) if (name.startsWith('present')) next[pastOf(name)] = t as ort.Tensor;
  return next;
}

/** Feeds of the plain graph for `ids` at position `pos`, with `total` positions in all. */
function plainFeeds(session: ort.InferenceSession, ids: number[], pos: number): Feeds {
  const f: Feeds = { input_ids: i64(ids, [1, ids.length]), attention_mask: ones(pos + ids.length) };
  if (session.inputNames.includes('position_ids'))
    f.position_ids = i64(
      ids.map((_, i) => pos + i),
      [1, ids.length],
    );
  if (session.inputNames.includes('num_logits_to_keep')) f.num_logits_to_keep = i64([1], []);
  return f;
}

type Shape = { hidden: number; convL: number; kvHeads: number; headDim: number };

/** Prefill `prompt` with the plain graph; returns its first greedy token and the state after it. */
async function prefill(plain: ort.InferenceSession, shape: Shape, prompt: number[]) {
  const out = await plain.run({ ...plainFeeds(plain, prompt, 0), ...freshState(plain, shape) });
  return { token: argmax(lastRow(out.logits as ort.Tensor)), state: carry(out) };
}

export async function decodePlain(
  plain: ort.InferenceSession,
  shape: Shape,
  prompt: number[],
  steps: number,
): Promise<DecodeTrace> {
  let { token, state } = await prefill(plain, shape, prompt);
  const trace: DecodeTrace = { tokens: [token], logits: [] };
  for (let t = 0; t < steps; t++) {
    const out = await plain.run({ ...plainFeeds(plain, [token], prompt.length + t), ...state });
    const logits = lastRow(out.logits as ort.Tensor);
    trace.logits.push(logits);
    token = argmax(logits);
    trace.tokens.push(token);
    state = carry(out);
  }
  return trace;
}

/** Copies a [1, h, n, d] cache into a zeroed [1, h, capacity, d] buffer. */
function padCache(t: ort.Tensor, capacity: number): ort.Tensor {
  const [, h, n, d] = t.dims as [number, number, number, number];
  const src = t.data as Float32Array;
  const out = new Float32Array(h * capacity * d);
  for (let i = 0; i < h; i++) out.set(src.subarray(i * n * d, (i + 1) * n * d), i * capacity * d);
  return new ort.Tensor('float32', out, [1, h, capacity, d]);
}

export async function decodeStatic(
  plain: ort.InferenceSession,
  rewritten: ort.InferenceSession,
  shape: Shape,
  prompt: number[],
  steps: number,
  capacity: number,
): Promise<DecodeTrace> {
  const first = await prefill(plain, shape, prompt);
  let token = first.token;
  let state: Feeds = Object.fromEntries(
    Object.entries(first.state).map(([k, t]) => [k, k.startsWith('past_key_values.') ? padCache(t, capacity) : t]),
  );
  const trace: DecodeTrace = { tokens: [token], logits: [] };
  for (let t = 0; t < steps; t++) {
    const pos = prompt.length + t;
    const feeds: Feeds = { input_ids: i64([token], [1, 1]), seqlens_k: i32(pos), total_sequence_length: i32(pos + 1), ...state };
    if (rewritten.inputNames.includes('position_ids')) feeds.position_ids = i64([pos], [1, 1]);
    const out = await rewritten.run(feeds);
    const logits = lastRow(out.logits as ort.Tensor);
    trace.logits.push(logits);
    token = argmax(logits);
    trace.tokens.push(token);
    state = carry(out);
  }
  return trace;
}

export function maxAbsDiff(a: Float32Array[], b: Float32Array[]): number {
  let d = 0;
  a.forEach((x, s) => x.forEach((v, i) => (d = Math.max(d, Math.abs(v - b[s]![i]!)))));
  return d;
}
