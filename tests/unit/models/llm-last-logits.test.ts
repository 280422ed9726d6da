// The product runtime loads the plain graph rewritten to compute the last position's logits (models/llm/last-logits.ts)
// through transformers.js itself (the rewritten bytes served in place of the pinned file): with real transformers.js +
// onnxruntime-node, on tiny graphs in both published exporters' structures, a prompt's prefill hands back one row of
// logits instead of one per token, and the answers are the ones the unrewritten graph gives, across a prefix-cache turn.
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tensor } from '@huggingface/transformers';
import { LlmRuntime, type ChatMessage } from '../../../models/llm/llm-runtime';
import type { OrtClasses } from '../../../models/llm/static-kv/static-decoder';
import { llmTunables, setTunable } from '../../../core/tunables';
import { LFM2_EXPORTER_STYLES } from '../../../bench/stages/lfm2-exporter-graphs';
import { LFM2_TINY } from '../../../bench/stages/llm-graph';
import { serveExporterLlm } from './hub-env';

const ORT = ort as unknown as OrtClasses;
const SYSTEM: ChatMessage = { role: 'system', content: 'You are Sidetalk.' };

/** The logits' dims of every run of the plain graph (transformers.js's session), as they come back. */
function recordLogitsDims(llm: LlmRuntime): number[][] {
  const dims: number[][] = [];
  type Session = { run: (f: Record<string, Tensor>) => Promise<Record<string, { dims: number[] }>> };
  const session = (llm.model as unknown as { sessions: Record<string, Session> }).sessions.model!;
  const run = session.run.bind(session);
  session.run = async (feeds) => {
    const out = await run(feeds);
    dims.push([...out.logits!.dims]);
    return out;
  };
  return dims;
}

for (const style of LFM2_EXPORTER_STYLES) {
  describe(`last-position logits in the runtime: the ${style} structure`, () => {
    let close: () => Promise<void>;
    let full: LlmRuntime;
    let last: LlmRuntime;
    const savedBudget = llmTunables.contextTokenBudget;

    beforeAll(async () => {
      expect(setTunable('llm.contextTokenBudget', LFM2_TINY.maxPositions)).toEqual({ ok: true });
      const served = await serveExporterLlm(style);
      close = served.close;
      full = await LlmRuntime.load({ device: 'cpu', warmUp: false, staticKv: 'plain', lastLogits: false, ort: ORT });
      last = await LlmRuntime.load({ device: 'cpu', warmUp: false, staticKv: 'plain', ort: ORT });
    });
    afterAll(async () => {
      await full?.dispose();
      await last?.dispose();
      await close?.();
      setTunable('llm.contextTokenBudget', savedBudget);
    });

    it('the status has no note: the prefill computes one position', () => {
      expect(last.decodeStatus).toEqual({ decode: 'plain', plainReason: 'static-KV decode is turned off' });
    });

    it('two turns: the same answers and counts; each prefill hands back one row of logits, not one per token', async () => {
      const turn1: ChatMessage[] = [SYSTEM, { role: 'user', content: 'Tell me a story.' }];
      const answers = [];
      for (const llm of [full, last]) {
        const dims = recordLogitsDims(llm);
        const a = await llm.generate(turn1, { maxNewTokens: 24 });
        const b = await llm.generate([...turn1, { role: 'assistant', content: a.text }, { role: 'user', content: 'And then?' }], {
          maxNewTokens: 24,
        });
        answers.push({ texts: [a.text, b.text], stats: [a.stats, b.stats], dims });
      }
      const [f, l] = answers as [(typeof answers)[0], (typeof answers)[0]];
      expect(f.stats[0]!.newTokens).toBeGreaterThan(8);
      expect(f.stats[1]!.cachedTokens).toBeGreaterThan(0); // the second turn's prefill is on top of a cached prefix
      expect(l.texts).toEqual(f.texts);
      expect(l.stats).toEqual(f.stats);
      const prefills = (d: number[][]) => d.filter((_, i) => i === 0 || i === f.stats[0]!.newTokens);
      expect(prefills(f.dims).map((d) => d[1])).toEqual([f.stats[0]!.prefillTokens, f.stats[1]!.prefillTokens]);
      expect(f.stats[1]!.prefillTokens).toBeGreaterThan(1);
      expect(l.dims.every((d) => d[1] === 1)).toBe(true);
      expect(l.dims).toHaveLength(f.dims.length);
    });
  });
}
