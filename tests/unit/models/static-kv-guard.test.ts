// The load-time check (models/llm/static-kv/guard.ts, docs/llm-static-kv.md "Fallback") on onnxruntime-node: a
// correct static decoder passes with logits equal to the plain graph's; one that reads the cache one position off
// (what a GPU with a wrong captured path would give) is refused with the step and tokens that differed.
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { buildLfm2ExporterGraph } from '../../../bench/stages/lfm2-exporter-graphs';
import { LFM2_TINY } from '../../../bench/stages/llm-graph';
import { prefill } from '../../../bench/stages/static-kv-decode';
import { rewriteForStaticKv } from '../../../models/llm/static-kv/rewrite';
import { checkStaticDecoder } from '../../../models/llm/static-kv/guard';
import { HostStaticDecoder, type OrtClasses } from '../../../models/llm/static-kv/static-decoder';

const ORT = ort as unknown as OrtClasses;
const PROMPT = [3, 17, 92, 5, 250, 41, 7];
const CAPACITY = 64;

/** A decoder whose steps attend one position short: the state handling a broken captured replay would show. */
class OffByOne extends HostStaticDecoder {
  override step(token: number, pos: number): Promise<Float32Array> {
    return super.step(token, pos - 1);
  }
}

async function setup(Decoder: typeof HostStaticDecoder) {
  const graph = buildLfm2ExporterGraph(LFM2_TINY, 'genai-builder', 'q4').onnx;
  const rewrite = rewriteForStaticKv(graph, CAPACITY);
  if (!rewrite.ok) throw new Error(rewrite.reason);
  const plain = await ort.InferenceSession.create(graph);
  const decoder = new Decoder(ORT, await ort.InferenceSession.create(rewrite.onnx), CAPACITY);
  const first = await prefill(ort, plain, { ...LFM2_TINY, act: 'float32' }, PROMPT);
  const run = (steps: number) =>
    checkStaticDecoder({
      ort: ORT,
      plain: plain as never,
      decoder,
      cache: first.state as never,
      promptLength: PROMPT.length,
      firstToken: first.token,
      steps,
      maxRelDiff: 0.02,
    });
  return { run, release: () => Promise.all([plain.release(), decoder.release()]) };
}

describe('static-KV load-time check', () => {
  it('passes a correct decoder: the same tokens, logits bit-identical on the CPU', async () => {
    const { run, release } = await setup(HostStaticDecoder);
    const r = await run(8);
    expect(r).toMatchObject({ ok: true, maxAbsDiff: 0, relDiff: 0 });
    if (r.ok) expect(new Set(r.tokens).size).toBeGreaterThan(2);
    await release();
  });

  it('refuses a decoder one position off, naming the step', async () => {
    const { run, release } = await setup(OffByOne);
    const r = await run(8);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/^(step \d+: token \d+, plain \d+|logits differ by .* of their range)/);
    expect(r.relDiff).toBeGreaterThan(0.02);
    await release();
  });
});
