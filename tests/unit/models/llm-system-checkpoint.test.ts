// The system prompt's checkpoint (models/llm/system-checkpoint.ts) in the product runtime with the real transformers.js
// + onnxruntime-node and the fixture LLM: a turn the prefix cache cannot serve (the history keeps less of the last
// answer than was generated, as after the user talked over it) starts from the cache at the end of the system prompt,
// and answers exactly as a runtime that prefills everything.
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamicCache, Tensor } from '@huggingface/transformers';
import { LlmRuntime, type ChatMessage } from '../../../models/llm/llm-runtime';
import type { OrtClasses } from '../../../models/llm/static-kv/static-decoder';
import { SystemCheckpoint, type OrtTensorFactory } from '../../../models/llm/system-checkpoint';
import { startFixtureHub } from './hub-env';

const ORT = ort as unknown as OrtClasses;
const SYSTEM: ChatMessage = {
  role: 'system',
  content: 'You are Sidetalk, a voice assistant in the side panel. Answer in one or two short sentences.',
};
const OTHER_SYSTEM: ChatMessage = { role: 'system', content: `${SYSTEM.content} The user reads French.` };

describe('the system prompt checkpoint', () => {
  let close: () => Promise<void>;
  let llm: LlmRuntime;
  let ref: LlmRuntime;
  beforeAll(async () => {
    close = (await startFixtureHub()).close;
    llm = await LlmRuntime.load({ device: 'cpu', warmUp: false, ort: ORT });
    ref = await LlmRuntime.load({ device: 'cpu', warmUp: false, ort: ORT, systemCheckpoint: false });
  });
  afterAll(async () => {
    await llm?.dispose();
    await ref?.dispose();
    await close?.();
  });

  /** Tokens of the system messages alone, as the checkpoint covers them. */
  const systemTokens = (system: ChatMessage) =>
    (
      llm.tokenizer.apply_chat_template([system], {
        add_generation_prompt: false,
        tokenize: true,
        return_dict: true,
      }) as unknown as {
        input_ids: Tensor;
      }
    ).input_ids.dims[1]!;

  /** `messages` on the runtime under test, and on the reference prefilling everything (its caches dropped first). */
  async function turn(messages: ChatMessage[]) {
    await ref.resetCache();
    const [got, want] = [await llm.generate(messages, { maxNewTokens: 8 }), await ref.generate(messages, { maxNewTokens: 8 })];
    expect(want.stats.cachedTokens).toBe(0);
    expect(got.text).toBe(want.text);
    return got;
  }

  it('the first turn builds it (its tokens all prefilled); talked-over turns after it start from it and answer the same', async () => {
    const s = systemTokens(SYSTEM);
    expect(s).toBeGreaterThanOrEqual(32);
    const q1: ChatMessage[] = [SYSTEM, { role: 'user', content: 'What is the weather like?' }];
    const t1 = await turn(q1);
    expect(t1.stats).toMatchObject({ cachedTokens: 0, prefillTokens: t1.stats.promptTokens });
    // The user talked over the answer: the history keeps the part heard, so the prefix cache cannot serve the prompt.
    const q2: ChatMessage[] = [
      ...q1,
      { role: 'assistant', content: t1.text.slice(0, 2) },
      { role: 'user', content: 'And tomorrow?' },
    ];
    const t2 = await turn(q2);
    expect(t2.stats.cachedTokens).toBe(s);
    expect(t2.stats.prefillTokens).toBe(t2.stats.promptTokens - s);
    // Again: the checkpoint outlives the turn that went on from it (that turn replaced every tensor of its cache).
    const q3: ChatMessage[] = [...q2, { role: 'assistant', content: t2.text.slice(0, 1) }, { role: 'user', content: 'Thanks.' }];
    expect((await turn(q3)).stats.cachedTokens).toBe(s);
  });

  it('a complete turn is still served whole by the prefix cache; a changed system prompt builds a new checkpoint', async () => {
    const q1: ChatMessage[] = [SYSTEM, { role: 'user', content: 'Name a colour.' }];
    const t1 = await turn(q1);
    const q2: ChatMessage[] = [...q1, { role: 'assistant', content: t1.text }, { role: 'user', content: 'Another.' }];
    const t2 = await llm.generate(q2, { maxNewTokens: 8 });
    expect(t2.stats.cachedTokens).toBeGreaterThan(systemTokens(SYSTEM)); // the whole first turn, not only the system prompt
    const other: ChatMessage[] = [OTHER_SYSTEM, { role: 'user', content: 'Name a colour.' }];
    expect((await turn(other)).stats.cachedTokens).toBe(0); // neither cache starts this prompt: a new checkpoint
    const again: ChatMessage[] = [OTHER_SYSTEM, { role: 'user', content: 'Name a number.' }];
    expect((await turn(again)).stats.cachedTokens).toBe(systemTokens(OTHER_SYSTEM));
  });

  it('without system messages, or with the checkpoint off, nothing is kept', async () => {
    await llm.resetCache();
    const bare: ChatMessage[] = [{ role: 'user', content: 'What is the weather like today in the city?' }];
    await turn(bare);
    const next: ChatMessage[] = [{ role: 'user', content: 'What is the weather like today in the hills?' }];
    expect((await turn(next)).stats.cachedTokens).toBe(0);
    const q: ChatMessage[] = [SYSTEM, { role: 'user', content: 'Hello?' }];
    await ref.generate(q, { maxNewTokens: 4 });
    const r2 = await ref.generate([SYSTEM, { role: 'user', content: 'Hi?' }], { maxNewTokens: 4 });
    expect(r2.stats.cachedTokens).toBe(0);
  });
});

describe('the checkpoint over GPU tensors: aliases, never copies, never freed by a turn', () => {
  // onnxruntime's GPU tensors need no device to exist: a stand-in buffer and a disposer that says when it ran.
  const freed: string[] = [];
  const gpuTensor = (name: string) =>
    new Tensor(
      ort.Tensor.fromGpuBuffer({ name } as never, {
        dataType: 'float32',
        dims: [1, 2, 3, 4],
        dispose: () => void freed.push(name),
      }) as never,
    );
  const bufferOf = (t: Tensor) => (t.ort_tensor as unknown as { gpuBuffer: { name: string } }).gpuBuffer.name;

  it('a turn going on from it replaces (and frees) only aliases; the next turn gets the same buffers; clear() frees them', async () => {
    const checkpoint = new SystemCheckpoint(ort.Tensor as unknown as OrtTensorFactory);
    const cache = new DynamicCache({ 'past_key_values.0.key': gpuTensor('k0'), 'past_conv.1': gpuTensor('c1') });
    expect(await checkpoint.keep(cache, [1, 2, 3])).toBe(true);
    // The building turn goes on: generate() updates its cache in place, disposing what each new tensor replaces.
    cache.update({ 'past_key_values.0.key': gpuTensor('k0-next'), 'past_conv.1': gpuTensor('c1-next') });
    expect(freed).toEqual([]);
    const next = checkpoint.take([1, 2, 3, 4])!;
    expect(next.cachedTokens).toBe(3);
    const entries = Object.entries(next.cache) as [string, Tensor][];
    expect(entries.map(([k, t]) => [k, bufferOf(t)])).toEqual([
      ['past_key_values.0.key', 'k0'],
      ['past_conv.1', 'c1'],
    ]);
    await next.cache.dispose(); // a failed turn disposes its cache: aliases only
    expect(freed).toEqual([]);
    expect(checkpoint.take([1, 2, 4])).toBeNull(); // not a prefix
    await checkpoint.clear();
    expect(freed.sort()).toEqual(['c1', 'k0']);
    expect(checkpoint.take([1, 2, 3, 4])).toBeNull();
  });

  it('keeps nothing when GPU tensors cannot be aliased (no onnxruntime Tensor class)', async () => {
    const checkpoint = new SystemCheckpoint(null);
    expect(await checkpoint.keep(new DynamicCache({ 'past_conv.0': gpuTensor('x') }), [1])).toBe(false);
    expect(checkpoint.size).toBe(0);
  });
});
