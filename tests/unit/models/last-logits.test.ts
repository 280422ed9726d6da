// The plain LLM graph rewritten to compute the logits of the last position only (models/llm/last-logits.ts): on LFM2
// graphs in the node structure of both published exporters (bench/stages/lfm2-exporter-graphs.ts), the prefill hands
// back one row instead of one per prompt token, and a prefill + 64 greedy steps give the plain graph's tokens and
// logits. Graphs that end otherwise are left alone with the reason. onnxruntime-node, CPU EP.
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { buildLfm2ExporterGraph, LFM2_EXPORTER_STYLES } from '../../../bench/stages/lfm2-exporter-graphs';
import { buildLlmGraph, LFM2_TINY } from '../../../bench/stages/llm-graph';
import { decodePlain, maxAbsDiff, prefillOnTop } from '../../../bench/stages/static-kv-decode';
import { keepLastLogits } from '../../../models/llm/last-logits';
import { readModel, writeModel } from '../../../models/llm/static-kv/onnx-graph-edit';
import { buildLfm2Graph } from '../../fixtures/models/lfm2-graph';

const PROMPT = [3, 17, 92, 5, 250, 41, 7];
const STEPS = 64;

/** The shape of the logits a prefill of PROMPT hands back, from empty caches. */
async function prefillLogitsDims(session: ort.InferenceSession, act: 'float32' | 'float16') {
  const n = PROMPT.length;
  const ids = (values: number[]) => new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), [1, values.length]);
  const zeros = (k: number) => (act === 'float16' ? new Uint16Array(k) : new Float32Array(k));
  const { hidden, convL, kvHeads, headDim } = LFM2_TINY;
  const feeds: Record<string, ort.Tensor> = { input_ids: ids(PROMPT), attention_mask: ids(new Array<number>(n).fill(1)) };
  for (const name of session.inputNames) {
    if (name === 'position_ids') feeds[name] = ids(PROMPT.map((_, i) => i));
    if (name.startsWith('past_conv.')) feeds[name] = new ort.Tensor(act, zeros(hidden * convL), [1, hidden, convL]);
    if (name.startsWith('past_key_values.')) feeds[name] = new ort.Tensor(act, zeros(0), [1, kvHeads, 0, headDim]);
  }
  return (await session.run(feeds)).logits!.dims;
}

describe('keepLastLogits', () => {
  for (const style of LFM2_EXPORTER_STYLES) {
    for (const dtype of ['fp32', 'q4', 'q4f16'] as const) {
      it(`${style} ${dtype}: one row of logits from a prefill; 64 greedy steps with the plain graph's tokens and logits`, async () => {
        const graph = buildLfm2ExporterGraph(LFM2_TINY, style, dtype).onnx;
        const rewrite = keepLastLogits(graph);
        if (!rewrite.ok) throw new Error(rewrite.reason);
        const act = dtype === 'q4f16' ? ('float16' as const) : ('float32' as const);
        const plain = await ort.InferenceSession.create(graph);
        const last = await ort.InferenceSession.create(rewrite.onnx);
        expect(await prefillLogitsDims(plain, act)).toEqual([1, PROMPT.length, LFM2_TINY.vocab]);
        expect(await prefillLogitsDims(last, act)).toEqual([1, 1, LFM2_TINY.vocab]);
        const dims = { ...LFM2_TINY, act };
        const a = await decodePlain(ort, plain, dims, PROMPT, STEPS);
        const b = await decodePlain(ort, last, dims, PROMPT, STEPS);
        expect(b.tokens).toEqual(a.tokens);
        expect(new Set(a.tokens).size).toBeGreaterThan(4);
        // A later turn's prefill of several tokens on top of the cache: the same next token and logits.
        const more = [11, 12, 13, 14, 15];
        const pa = await prefillOnTop(ort, plain, a.state, more, PROMPT.length + STEPS);
        const pb = await prefillOnTop(ort, last, b.state, more, PROMPT.length + STEPS);
        expect(pb.token).toBe(pa.token);
        const diff = maxAbsDiff([...a.logits, pa.logits], [...b.logits, pb.logits]);
        console.info(`[last-logits] ${style} ${dtype}: max |Δ logit| = ${diff.toExponential(2)}`);
        // The head's row for the last position is the same arithmetic whether it runs on 1 row or n (observed 0).
        expect(diff).toBe(0);
        await Promise.all([plain.release(), last.release()]);
      });
    }
  }

  it("leaves alone a graph that already keeps what it is asked for (the project's bench graph: num_logits_to_keep)", () => {
    expect(keepLastLogits(buildLlmGraph(LFM2_TINY, 'fp32').onnx)).toEqual({
      ok: false,
      reason: 'the graph already keeps the logits asked for (num_logits_to_keep)',
    });
  });

  it('leaves alone a graph whose logits do not come from the LM head, and bytes that are not a model', () => {
    const graph = buildLfm2ExporterGraph(LFM2_TINY, 'genai-builder', 'fp32').onnx;
    const m = readModel(graph);
    // The last node before `logits` swapped for an op that is not a head: a Softmax over what the head produced.
    const identity = m.nodes.find((n) => n.output.includes('logits'))!;
    identity.opType = 'Softmax';
    const r = keepLastLogits(writeModel(m));
    expect(r).toEqual({ ok: false, reason: '"logits" comes from Softmax, not the LM head' });
    expect(keepLastLogits(new Uint8Array([1, 2, 3])).ok).toBe(false);
  });

  it("the e2e hub's fixture LLM (scripted logits, no LM head) is left alone with the reason", () => {
    expect(keepLastLogits(buildLfm2Graph('model_q4.onnx_data').onnx)).toEqual({
      ok: false,
      reason: '"logits" comes from Expand, not the LM head',
    });
  });
});
