// A rewritten graph that onnxruntime refuses (models/llm/last-logits.ts stood in by one that returns bytes no runtime
// reads) must not cost the user the LLM: the runtime loads the graph as published and the status says why.
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LlmRuntime } from '../../../models/llm/llm-runtime';
import type { OrtClasses } from '../../../models/llm/static-kv/static-decoder';
import { llmTunables, setTunable } from '../../../core/tunables';
import { LFM2_TINY } from '../../../bench/stages/llm-graph';
import { serveExporterLlm } from './hub-env';

vi.mock('../../../models/llm/last-logits', async (original) => ({
  ...(await original<typeof import('../../../models/llm/last-logits')>()),
  keepLastLogits: () => ({ ok: true, onnx: Uint8Array.of(8, 7, 6, 5) }),
}));

describe('last-position logits: a rewrite the runtime cannot load', () => {
  let close: () => Promise<void>;
  const savedBudget = llmTunables.contextTokenBudget;
  beforeAll(async () => {
    expect(setTunable('llm.contextTokenBudget', LFM2_TINY.maxPositions)).toEqual({ ok: true });
    close = (await serveExporterLlm('genai-builder')).close;
  });
  afterAll(async () => {
    await close?.();
    setTunable('llm.contextTokenBudget', savedBudget);
  });

  it('loads the published graph, answers, and the status names the failure', async () => {
    const llm = await LlmRuntime.load({ device: 'cpu', warmUp: false, staticKv: 'plain', ort: ort as unknown as OrtClasses });
    try {
      expect(llm.decodeStatus.allLogits).toMatch(/^the rewritten graph did not load \(/);
      const r = await llm.generate([{ role: 'user', content: 'Tell me a story.' }], { maxNewTokens: 6 });
      expect(r.stats.newTokens).toBeGreaterThan(0);
    } finally {
      await llm.dispose();
    }
  });
});
