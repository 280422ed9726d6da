/**
 * One answer decoded through the static-KV decoder (docs/llm-static-kv.md, "The product wiring"). transformers.js
 * prefills on the plain graph and picks the first token, exactly as its generate() does today (the prefix cache's
 * DynamicCache is extended in place); the cache then goes into the static buffers and each further token is one
 * static step, with transformers.js's own logits processors (the repetition penalty), stopping criteria (max tokens,
 * EOS, the AbortSignal) and streamer driven in generate()'s order: sample, stream, then check the criteria. At the
 * end the cache comes back in the plain layout, cut to the positions it covers, for the next turn's prefill.
 */
import { Tensor, type DynamicCache, type PreTrainedModel, type TextStreamer } from '@huggingface/transformers';
import { AbortSignalCriteria } from './abort-criteria';
import { argmaxOf } from './static-kv/argmax';
import type { Feeds, OrtTensor, StaticDecoder } from './static-kv/static-decoder';

type Cache = InstanceType<typeof DynamicCache>;

/** transformers.js 4.3.2 internals generate() itself uses; reused so both paths apply the same rules. */
interface GenerationInternals {
  _prepare_generation_config(config: null, kwargs: object): { max_length: number | null };
  _get_logits_processor(config: object, inputLength: number, extra: null): (ids: bigint[][], logits: Tensor) => Tensor;
  _get_stopping_criteria(config: object, extra: AbortSignalCriteria[] | null): (ids: bigint[][]) => boolean[];
}

export interface StaticTurn {
  model: PreTrainedModel;
  decoder: StaticDecoder;
  inputs: { input_ids: Tensor; attention_mask: Tensor };
  promptIds: readonly number[];
  cache: Cache;
  maxNewTokens: number;
  repetitionPenalty: number;
  streamer: TextStreamer;
  signal?: AbortSignal;
  /**
   * Take the first token from a static step as well (the plain session's logits are wrong on this device, its cache is
   * not: the status's plainFault): the plain graph prefills all but the prompt's last token, whose step is static.
   */
  firstOnStatic?: boolean;
}

/** The cache's tensors as onnxruntime tensors. */
export function cacheFeeds(cache: Cache): Feeds {
  const out: Feeds = {};
  for (const [name, t] of Object.entries(cache)) out[name] = (t as Tensor).ort_tensor as OrtTensor;
  return out;
}

function wrap(feeds: Feeds): Record<string, Tensor> {
  const out: Record<string, Tensor> = {};
  for (const [name, t] of Object.entries(feeds)) {
    const wrapped = new Tensor(t as never);
    // transformers.js wraps only its own onnxruntime's tensors; anything else would be read as (type, data, dims).
    if (wrapped.ort_tensor !== (t as never)) throw new Error('the static decoder runs on another onnxruntime instance');
    out[name] = wrapped;
  }
  return out;
}

/**
 * A greedy prefill of `ids` through the plain graph into `cache` (which then covers them); returns the token it picks,
 * which callers that only want the cache ignore.
 */
export async function prefillIds(model: PreTrainedModel, ids: readonly number[], cache: Cache): Promise<number> {
  const out = (await model.generate({
    input_ids: new Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]),
    attention_mask: new Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]),
    past_key_values: cache,
    max_new_tokens: 1,
    do_sample: false,
  })) as Tensor;
  return Number((out.tolist() as bigint[][])[0]!.at(-1)!);
}

/** Returns prompt + generated ids, as generate() does; `cache` covers all but the last id afterwards. */
export async function generateStatic(turn: StaticTurn): Promise<number[]> {
  const { model, decoder, streamer } = turn;
  const kwargs = { max_new_tokens: turn.maxNewTokens, do_sample: false, repetition_penalty: turn.repetitionPenalty };
  const internals = model as unknown as GenerationInternals;
  const config = internals._prepare_generation_config(null, kwargs);
  config.max_length = turn.promptIds.length + turn.maxNewTokens;
  const processors = internals._get_logits_processor(config, turn.promptIds.length, null);
  const criteria = internals._get_stopping_criteria(config, turn.signal ? [new AbortSignalCriteria(turn.signal)] : null);

  const step = async (token: bigint, pos: number): Promise<bigint> => {
    const logits = await decoder.step(Number(token), pos);
    const scores = processors(all, new Tensor('float32', logits, [1, logits.length]));
    return BigInt(argmaxOf(scores.data as Float32Array));
  };
  const all: bigint[][] = [turn.promptIds.map(BigInt)];
  let token: bigint;
  let pos: number;
  if (turn.firstOnStatic) {
    const head = turn.promptIds.length - 1;
    if (turn.cache.get_seq_length() < head) await prefillIds(model, turn.promptIds.slice(0, head), turn.cache);
    pos = turn.cache.get_seq_length();
    await decoder.load(cacheFeeds(turn.cache), pos);
    token = await step(all[0]!.at(-1)!, pos);
    pos += 1;
  } else {
    // The prefill and the first token, through the plain graph (no streamer: its end() would flush a partial word).
    const first = (await model.generate({ ...turn.inputs, past_key_values: turn.cache, ...kwargs, max_new_tokens: 1 })) as Tensor;
    token = (first.tolist() as bigint[][])[0]!.at(-1)!;
    pos = turn.cache.get_seq_length();
  }
  all[0]!.push(token);
  streamer.put([turn.promptIds.map(BigInt)]);
  streamer.put([[token]]);
  if (!criteria(all).every(Boolean)) {
    if (!turn.firstOnStatic) await decoder.load(cacheFeeds(turn.cache), pos);
    for (;;) {
      token = await step(token, pos);
      pos += 1;
      all[0]!.push(token);
      streamer.put([[token]]);
      if (criteria(all).every(Boolean)) break;
    }
  }
  // The static buffers hold every position fed so far; the cache goes back in the plain layout for the next turn.
  if (pos > turn.cache.get_seq_length()) turn.cache.update(wrap(await decoder.exportCache(pos)));
  streamer.end();
  return all[0]!.map(Number);
}
