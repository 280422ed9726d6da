// The static-KV rewrite (models/llm/static-kv) on LFM2 graphs in the node structure of both published exporters
// (bench/stages/lfm2-exporter-graphs.ts, docs/llm-static-kv.md): after the same plain prefill, 64 greedy decode steps
// through the rewritten graph give the plain graph's tokens and logits; graphs it does not recognise come back
// "not recognised" with the reason. onnxruntime-node CPU EP (GroupQueryAttention's CPU kernel).
import * as ort from 'onnxruntime-node';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { buildLfm2ExporterGraph, LFM2_EXPORTER_STYLES } from '../../../bench/stages/lfm2-exporter-graphs';
import { buildLlmGraph, LFM2_TINY, type LlmShape } from '../../../bench/stages/llm-graph';
import { rewriteForStaticKv } from '../../../models/llm/static-kv/rewrite';
import { buildLfm2Graph } from '../../fixtures/models/lfm2-graph';
import {
  continuePlain,
  decodePlain,
  decodeStatic,
  maxAbsDiff,
  prefillOnTop,
  toPlainState,
} from '../../../bench/stages/static-kv-decode';

const { onnx } = onnxProto;
const STEPS = 64;
const CAPACITY = 96;
const PROMPT = [3, 17, 92, 5, 250, 41, 7];
/** Same weights, same kernels, same positions: on the CPU EP the logits come out bit-identical (observed 0). */
const TOLERANCE = 0;

async function compare(graph: Uint8Array, shape: LlmShape, act: 'float32' | 'float16' = 'float32') {
  const rewrite = rewriteForStaticKv(graph, CAPACITY);
  if (!rewrite.ok) throw new Error(`not recognised: ${rewrite.reason}`);
  const plain = await ort.InferenceSession.create(graph);
  const rewritten = await ort.InferenceSession.create(rewrite.onnx);
  const dims = { ...shape, act };
  const a = await decodePlain(ort, plain, dims, PROMPT, STEPS);
  const b = await decodeStatic(ort, plain, rewritten, dims, PROMPT, STEPS, CAPACITY);
  await Promise.all([plain.release(), rewritten.release()]);
  return { rewrite, rewritten, a, b, diff: maxAbsDiff(a.logits, b.logits) };
}

describe('static-KV rewrite: decode equals the plain graph', () => {
  for (const style of LFM2_EXPORTER_STYLES) {
    for (const dtype of ['fp32', 'q4', 'q4f16'] as const) {
      it(`${style} ${dtype}: 64 greedy steps, same tokens, logits within ${TOLERANCE}`, async () => {
        const { rewrite, rewritten, a, b, diff } = await compare(
          buildLfm2ExporterGraph(LFM2_TINY, style, dtype).onnx,
          LFM2_TINY,
          dtype === 'q4f16' ? 'float16' : 'float32',
        );
        expect(rewrite.structure.rotary).toBe(style === 'liquid-builder' ? 'rotary-embedding' : 'in-attention');
        expect(rewritten.inputNames).not.toContain('attention_mask');
        expect(rewritten.inputNames).toEqual(expect.arrayContaining(['seqlens_k', 'total_sequence_length']));
        expect(rewritten.inputNames.includes('position_ids')).toBe(style === 'liquid-builder');
        expect(b.logits).toHaveLength(STEPS);
        expect(b.tokens).toEqual(a.tokens);
        expect(new Set(a.tokens).size).toBeGreaterThan(4); // a decode that actually moves
        console.info(`[static-kv] ${style} ${dtype}: max |Δ logit| over ${STEPS} steps = ${diff.toExponential(2)}`);
        expect(diff).toBeLessThanOrEqual(TOLERANCE);
      });
    }
  }

  it("the project's own bench graph (num_logits_to_keep, unused position_ids) is recognised too", async () => {
    const { rewritten, a, b, diff } = await compare(buildLlmGraph(LFM2_TINY, 'fp32').onnx, LFM2_TINY);
    expect(rewritten.inputNames).not.toContain('num_logits_to_keep');
    expect(rewritten.inputNames).not.toContain('position_ids');
    expect(b.tokens).toEqual(a.tokens);
    expect(diff).toBeLessThanOrEqual(TOLERANCE);
  });

  for (const style of LFM2_EXPORTER_STYLES) {
    it(`${style}: a static decode's cache serves the next turn's plain prefill (the prefix cache)`, async () => {
      const graph = buildLfm2ExporterGraph(LFM2_TINY, style, 'q4').onnx;
      const rewrite = rewriteForStaticKv(graph, CAPACITY);
      if (!rewrite.ok) throw new Error(rewrite.reason);
      const plain = await ort.InferenceSession.create(graph);
      const rewritten = await ort.InferenceSession.create(rewrite.onnx);
      const dims = { ...LFM2_TINY, act: 'float32' as const };
      const turn1 = 16;
      const next = [11, 12, 13, 14, 15];
      // Turn 1 decoded plainly or statically; the cache covers the prompt and every fed token (not the last sampled).
      const a1 = await decodePlain(ort, plain, dims, PROMPT, turn1);
      const b1 = await decodeStatic(ort, plain, rewritten, dims, PROMPT, turn1, CAPACITY);
      const covered = PROMPT.length + turn1;
      // Turn 2: the sampled token and a new user turn prefilled on top of that cache, then 16 plain steps.
      const ids = [a1.tokens.at(-1)!, ...next];
      const a2 = await prefillOnTop(ort, plain, a1.state, ids, covered);
      const b2 = await prefillOnTop(ort, plain, toPlainState(ort, b1.state, covered), ids, covered);
      expect(Array.from(b2.logits)).toEqual(Array.from(a2.logits));
      const a3 = await continuePlain(ort, plain, a2.state, a2.token, covered + ids.length, turn1);
      const b3 = await continuePlain(ort, plain, b2.state, b2.token, covered + ids.length, turn1);
      expect(b3.tokens).toEqual(a3.tokens);
      expect(maxAbsDiff(a3.logits, b3.logits)).toBe(0);
      await Promise.all([plain.release(), rewritten.release()]);
    });
  }

  it('the rewritten graph keeps no Shape node and fixes every shape the capture needs', () => {
    const rewrite = rewriteForStaticKv(buildLfm2ExporterGraph(LFM2_TINY, 'genai-builder', 'q4').onnx, CAPACITY);
    if (!rewrite.ok) throw new Error(rewrite.reason);
    const model = onnx.ModelProto.decode(rewrite.onnx);
    const g = model.graph!;
    expect(g.node!.filter((n) => n.opType === 'Shape')).toHaveLength(0);
    const dims = (name: string) =>
      g.input!.find((i) => i.name === name)!.type!.tensorType!.shape!.dim!.map((d) => Number(d.dimValue));
    expect(dims('input_ids')).toEqual([1, 1]);
    expect(dims('past_key_values.1.key')).toEqual([1, LFM2_TINY.kvHeads, CAPACITY, LFM2_TINY.headDim]);
    const out = g.output!.find((o) => o.name === 'present.1.key')!.type!.tensorType!.shape!.dim!.map((d) => Number(d.dimValue));
    expect(out).toEqual([1, LFM2_TINY.kvHeads, CAPACITY, LFM2_TINY.headDim]);
    expect(rewrite.removedNodes).toBeGreaterThan(0);
  });
});

type Mutation = (g: onnxProto.onnx.IGraphProto) => void;

function mutated(mutate: Mutation): Uint8Array {
  const model = onnx.ModelProto.decode(buildLfm2ExporterGraph(LFM2_TINY, 'genai-builder', 'fp32').onnx);
  mutate(model.graph!);
  return onnx.ModelProto.encode(model).finish();
}

const gqa = (g: onnxProto.onnx.IGraphProto) => g.node!.filter((n) => n.opType === 'GroupQueryAttention');

describe('static-KV rewrite: graphs it does not recognise', () => {
  const cases: [string, () => Uint8Array, RegExp][] = [
    ['the LLM fixture graph (no GroupQueryAttention)', () => buildLfm2Graph('model_q4.onnx_data').onnx, /GroupQueryAttention/],
    [
      'a sliding-window attention layer',
      () =>
        mutated((g) => {
          const attr = gqa(g)[0]!.attribute!.find((a) => a.name === 'local_window_size')!;
          attr.i = 8;
        }),
      /sliding window/,
    ],
    [
      'attention_mask read by another node',
      () =>
        mutated((g) => {
          g.node!.push({ opType: 'ReduceMax', input: ['attention_mask'], output: ['mask_max'], name: 'extra' });
        }),
      /attention_mask also feeds ReduceMax/,
    ],
    [
      'a conv slice sized by the hidden axis',
      () =>
        mutated((g) => {
          const shapeOfNormed = g.node!.find((n) => n.opType === 'Shape' && n.input![0] !== 'attention_mask')!;
          const gather = g.node!.find((n) => n.opType === 'Gather' && n.input![0] === shapeOfNormed.output![0])!;
          g.node!.push({
            opType: 'Constant',
            output: ['axis_two'],
            attribute: [{ name: 'value', type: 4, t: { dataType: 7, dims: [], int64Data: [2] } }],
          });
          gather.input![1] = 'axis_two';
        }),
      /not the sequence length/,
    ],
    [
      'an unknown input (inputs_embeds)',
      () =>
        mutated((g) => {
          g.input!.push({ name: 'inputs_embeds', type: { tensorType: { elemType: 1, shape: { dim: [] } } } });
        }),
      /unknown graph input "inputs_embeds"/,
    ],
    [
      'seqlens_k without the −1',
      () =>
        mutated((g) => {
          const sub = g.node!.find((n) => n.opType === 'Sub')!;
          g.node!.push({
            opType: 'Constant',
            output: ['zero'],
            attribute: [{ name: 'value', type: 4, t: { dataType: 7, dims: [1], int64Data: [0] } }],
          });
          sub.input![1] = 'zero';
        }),
      /does not subtract 1/,
    ],
    ['not an ONNX model', () => Uint8Array.of(0xff, 0xff, 0xff), /not a readable ONNX model/],
  ];
  for (const [what, build, reason] of cases) {
    it(`${what} → not recognised, with the reason`, () => {
      const r = rewriteForStaticKv(build(), CAPACITY);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(reason);
    });
  }

  it('a capacity beyond the rotary table is refused', () => {
    const r = rewriteForStaticKv(buildLfm2ExporterGraph(LFM2_TINY, 'liquid-builder', 'fp32').onnx, LFM2_TINY.maxPositions + 1);
    expect(r).toMatchObject({ ok: false, reason: expect.stringMatching(/exceeds the rotary table/) });
  });
});
