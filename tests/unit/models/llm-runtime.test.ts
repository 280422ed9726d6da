// LlmRuntime over the fixture LFM2 repo, downloaded over HTTP from the local hub server and run by the real
// transformers.js + onnxruntime-node code. Tokens are predicted by the JS reference in tests/fixtures/models.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamicCache, type Tensor } from '@huggingface/transformers';
import { LlmRuntime, type ChatMessage } from '../../../models/llm/llm-runtime';
import { llmTunables, setTunable } from '../../../core/tunables';
import { LLM, llmReferenceContinue } from '../../fixtures/models/reference';
import { expectRequestsInManifest, startFixtureHub, type HubEnv } from './hub-env';
import { LLM_BUNDLE } from '../../../models/registry';

let hub: HubEnv;
let llm: LlmRuntime;
/** input_ids length of every session.run of the decoder, in order. */
const runLengths: number[] = [];

const SYSTEM: ChatMessage = { role: 'system', content: 'You are Sidetalk.' };

function promptIds(messages: ChatMessage[], tools?: object[]): number[] {
  const out = llm.tokenizer.apply_chat_template(messages, {
    add_generation_prompt: true,
    return_dict: true,
    ...(tools ? { tools } : {}),
  }) as unknown as { input_ids: Tensor };
  return (out.input_ids.tolist() as bigint[][])[0]!.map(Number);
}

/** Reference text as the runtime streams it: special tokens kept, the end-of-turn marker dropped. */
function referenceText(ids: number[]): string {
  return llm.tokenizer.decode(
    ids.filter((id) => id !== LLM.eos),
    { skip_special_tokens: false },
  );
}

/** A user message whose reference continuation runs `n` tokens without EOS (and, optionally, contains `mustHave`). */
function findPrompt(n: number, mustHave?: number): { messages: ChatMessage[]; expected: number[] } {
  for (let i = 0; i < 500; i++) {
    const messages = [SYSTEM, { role: 'user' as const, content: `Question number ${i}?` }];
    const expected = llmReferenceContinue(promptIds(messages), n);
    if (expected.length === n && !expected.includes(LLM.eos) && (mustHave === undefined || expected.includes(mustHave))) {
      return { messages, expected };
    }
  }
  throw new Error('no suitable prompt found');
}

beforeAll(async () => {
  hub = await startFixtureHub();
  llm = await LlmRuntime.load({ device: 'cpu', warmUp: true });
  const session = (
    llm.model as unknown as { sessions: Record<string, { run: (feeds: Record<string, Tensor>) => Promise<unknown> }> }
  ).sessions.model!;
  const run = session.run.bind(session);
  session.run = (feeds) => {
    runLengths.push(feeds.input_ids!.dims[1]!);
    return run(feeds);
  };
});

afterAll(async () => {
  await llm?.dispose();
  await hub?.close();
});

describe('LlmRuntime (fixture LFM2 over HTTP)', () => {
  it('loaded the q4 graph and its external data at the pinned commit, and nothing the manifest does not list', () => {
    const files = expectRequestsInManifest(hub.hub.log, LLM_BUNDLE);
    expect(files).toContain('onnx/model_q4.onnx');
    expect(files).toContain('onnx/model_q4.onnx_data');
  });

  it('streams text deltas equal to the reference, not constant, one decoder run per token', async () => {
    await llm.resetCache();
    const { messages, expected } = findPrompt(12);
    const deltas: string[] = [];
    runLengths.length = 0;
    const result = await llm.generate(messages, { maxNewTokens: 12, onDelta: (d) => deltas.push(d) });
    expect(result.text).toBe(referenceText(expected));
    expect(deltas.join('')).toBe(result.text);
    expect(new Set(expected).size).toBeGreaterThan(3);
    expect(result.text).not.toContain('<ERR>');
    expect(result.stats).toMatchObject({ newTokens: 12, cachedTokens: 0, aborted: false });
    expect(runLengths).toEqual([result.stats.promptTokens, ...Array(11).fill(1)]);
  });

  it('keeps tool-call marker tokens in the stream', async () => {
    await llm.resetCache();
    const { messages, expected } = findPrompt(40, 5);
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
    const withTools = llmReferenceContinue(promptIds(messages, tools), 40);
    const result = await llm.generate(messages, { maxNewTokens: 40, tools });
    expect(result.text).toBe(referenceText(withTools));
    // The marker case is checked on the tool-free prompt chosen to contain it.
    await llm.resetCache();
    const plain = await llm.generate(messages, { maxNewTokens: 40 });
    expect(plain.text).toContain('<|tool_call_start|>');
    expect(plain.text).toBe(referenceText(expected));
  });

  it('stops mid-generation when the signal aborts, keeping the tokens so far', async () => {
    await llm.resetCache();
    const { messages, expected } = findPrompt(60);
    const controller = new AbortController();
    const result = await llm.generate(messages, {
      maxNewTokens: 60,
      signal: controller.signal,
      onDelta: () => controller.abort(),
    });
    expect(result.stats.aborted).toBe(true);
    expect(result.stats.newTokens).toBeGreaterThan(0);
    expect(result.stats.newTokens).toBeLessThan(60);
    expect(result.text).toBe(referenceText(expected.slice(0, result.stats.newTokens)));
  });

  it('reuses the cached prefix across turns: prefills only the tail and continues like a no-cache run', async () => {
    await llm.resetCache();
    const first = findPrompt(10);
    const turn1 = await llm.generate(first.messages, { maxNewTokens: 10 });
    const history: ChatMessage[] = [
      ...first.messages,
      { role: 'assistant', content: turn1.text },
      { role: 'user', content: 'and then?' },
    ];
    const full = promptIds(history);
    const expected = llmReferenceContinue(full, 8);

    runLengths.length = 0;
    const cached = await llm.generate(history, { maxNewTokens: 8 });
    // Turn 1 generated 10 tokens without EOS; the cache holds prompt + 9 (the last sampled token is never fed).
    expect(cached.stats.cachedTokens).toBe(promptIds(first.messages).length + 9);
    expect(cached.stats.prefillTokens).toBe(full.length - cached.stats.cachedTokens);
    expect(runLengths[0]).toBe(cached.stats.prefillTokens);
    expect(runLengths.slice(1).every((n) => n === 1)).toBe(true);
    expect(cached.text).toBe(referenceText(expected));

    await llm.resetCache();
    runLengths.length = 0;
    const uncached = await llm.generate(history, { maxNewTokens: 8 });
    expect(runLengths[0]).toBe(full.length);
    expect(uncached.text).toBe(cached.text);
  });

  it('drops the cache when the new prompt does not start with the cached ids', async () => {
    await llm.resetCache();
    const first = findPrompt(6);
    const turn1 = await llm.generate(first.messages, { maxNewTokens: 6 });
    const edited: ChatMessage[] = [
      SYSTEM,
      { role: 'user', content: 'An edited first question?' },
      { role: 'assistant', content: turn1.text },
      { role: 'user', content: 'more' },
    ];
    runLengths.length = 0;
    const result = await llm.generate(edited, { maxNewTokens: 6 });
    expect(result.stats.cachedTokens).toBe(0);
    expect(runLengths[0]).toBe(promptIds(edited).length);
    expect(result.text).toBe(referenceText(llmReferenceContinue(promptIds(edited), 6)));
  });

  it('compacts a long history to fit the token budget before generating', async () => {
    await llm.resetCache();
    const saved = llmTunables.contextTokenBudget;
    expect(setTunable('llm.contextTokenBudget', 256)).toEqual({ ok: true });
    try {
      const long: ChatMessage[] = [SYSTEM];
      for (let i = 0; i < 12; i++) {
        long.push(
          { role: 'user', content: `Tell me about item ${i}, please.` },
          { role: 'assistant', content: `Item ${i} is fine.` },
        );
      }
      long.push({ role: 'user', content: 'Latest?' });
      expect(llm.countTokens(long)).toBeGreaterThan(256);
      const result = await llm.generate(long, { maxNewTokens: 4 });
      expect(result.stats.compactedMessages).toBeGreaterThan(0);
      expect(result.stats.promptTokens).toBeLessThanOrEqual(Math.floor((256 - 4) * llmTunables.compactTargetRatio));
      const kept = [SYSTEM, ...long.slice(1 + result.stats.compactedMessages)];
      expect(result.stats.promptTokens).toBe(promptIds(kept).length);
      expect(result.text).toBe(referenceText(llmReferenceContinue(promptIds(kept), 4)));
    } finally {
      setTunable('llm.contextTokenBudget', saved);
    }
  });

  it('fixture negative control: a zeroed conv state turns the next token into <ERR>', async () => {
    const { messages } = findPrompt(4);
    const inputs = llm.tokenizer.apply_chat_template(messages, {
      add_generation_prompt: true,
      return_dict: true,
    }) as unknown as Record<string, Tensor>;
    const cache = new DynamicCache();
    await llm.model.generate({ ...inputs, past_key_values: cache, max_new_tokens: 3 });
    const conv = (cache as unknown as Record<string, Tensor>)['past_conv.0']!;
    (conv.data as Float32Array).fill(0);
    const more = llm.tokenizer.apply_chat_template([...messages, { role: 'assistant', content: 'ok' }], {
      add_generation_prompt: true,
      return_dict: true,
    }) as unknown as Record<string, Tensor>;
    // Feed a prompt the cache does not match token-for-token on purpose: only the zeroed state matters here.
    const out = (await llm.model.generate({ ...more, past_key_values: cache, max_new_tokens: 1 })) as Tensor;
    const ids = (out.tolist() as bigint[][])[0]!.map(Number);
    expect(ids.at(-1)).toBe(LLM.err);
    await cache.dispose();
  });
});
