/**
 * CI check of the stage benches (bench/stages): the smoke plan (tiny LFM2-, Pocket-TTS-, Moonshine-, Whisper- and
 * D-FINE-shaped graphs with the real models' operators, plus the static-KV decode graph of the graph-capture bench,
 * onnxruntime-web's WASM EP) must run and produce valid outputs — no all-zero or non-finite tensor — and a report.
 * Graph capture itself is WebGPU-only: on WASM its variant must be reported as skipped ("n/a on wasm"), not passed.
 * Timings are printed by the bench, never asserted here.
 */
import { describe, expect, it } from 'vitest';
import { checkTensor, isValid } from '../../../bench/stages/measure';
import { toFloat16 } from '../../../bench/stages/onnx-graph';
import { gpuJobs, smokeJobs } from '../../../bench/stages/plans';
import { renderMarkdown } from '../../../bench/stages/report';
import { defaultDistDir, runInProcess, selectJobs } from '../../../bench/stages/run';

describe('stage benches, output check', () => {
  it('marks all-zero and non-finite outputs invalid, fp16 included', () => {
    expect(isValid(checkTensor('ok', { type: 'float32', data: new Float32Array([0, 1, -2]) }))).toBe(true);
    expect(isValid(checkTensor('zeros', { type: 'float32', data: new Float32Array(8) }))).toBe(false);
    expect(isValid(checkTensor('nan', { type: 'float32', data: new Float32Array([1, NaN]) }))).toBe(false);
    expect(isValid(checkTensor('h-ok', { type: 'float16', data: toFloat16(new Float32Array([0.5, -3])) }))).toBe(true);
    expect(isValid(checkTensor('h-inf', { type: 'float16', data: toFloat16(new Float32Array([70000, 1])) }))).toBe(false);
  });
});

describe('stage benches, smoke mode', () => {
  it('runs every smoke job on WASM with valid outputs and renders the report', async () => {
    const doc = await runInProcess(
      smokeJobs(),
      { distDir: defaultDistDir(), dawnToggles: [], liftoffOnly: true, log: () => {} },
      'smoke',
    );
    expect(doc.results.map((r) => r.id)).toEqual(smokeJobs().map((j) => j.id));
    for (const r of doc.results) {
      expect(r.error, r.id).toBeUndefined();
      expect(r.validity.length, r.id).toBeGreaterThan(0);
      for (const v of r.validity) {
        expect(v.nonFinite, `${r.id} ${v.name}`).toBe(0);
        expect(v.allZero, `${r.id} ${v.name}`).toBe(false);
      }
      expect(r.valid, r.id).toBe(true);
    }
    const byId = Object.fromEntries(doc.results.map((r) => [r.id, r]));
    // The stages added for the detector, Whisper and graph capture are in the plan and ran.
    expect(byId['smoke-detector-fp32']?.stage).toBe('detector');
    expect((byId['smoke-detector-fp32']?.metrics.outputDims as { logits: number[] }).logits).toEqual([1, 20, 8]);
    expect(byId['smoke-whisper']?.stage).toBe('asr');
    expect(byId['smoke-whisper']?.variant).toBe('whisper-base');
    expect((byId['smoke-whisper']?.metrics.perLength as { encoderFrames: number }[]).map((p) => p.encoderFrames)).toEqual([
      1500, 1500,
    ]);
    const capture = byId['smoke-capture']!;
    expect(capture.stage).toBe('capture');
    expect(capture.metrics.off).toBeDefined();
    expect(capture.skipped?.[0]).toContain('n/a on wasm');
    expect((capture.metrics.on as { skipped?: string }).skipped).toContain('n/a on wasm');
    expect(capture.metrics.speedup).toBeUndefined();
    // Both exporters' structures through the product's static-KV rewrite: the same greedy tokens as the plain graph.
    for (const style of ['liquid-builder', 'genai-builder']) {
      const r = byId[`smoke-capture-${style}`]!;
      expect(r.variant).toBe(`llm-decode-${style}`);
      const check = r.metrics.plainVsStatic as {
        tokensEqual: boolean;
        steps: number;
        maxAbsLogitDiff: number;
        distinctTokens: number;
      };
      expect(check).toMatchObject({ tokensEqual: true, steps: 64 });
      expect(check.distinctTokens).toBeGreaterThan(4);
      expect(check.maxAbsLogitDiff).toBeLessThanOrEqual(1e-4);
    }
    const md = renderMarkdown(doc);
    for (const heading of [
      'LLM (LFM2.5-1.2B-shaped)',
      'Pocket TTS',
      'ASR (Moonshine-base-shaped',
      'Vision detector (D-FINE-M-shaped)',
      'Graph capture (LLM decode step',
      '| whisper-base |',
      'n/a on wasm',
    ])
      expect(md).toContain(heading);
    expect(md).toContain('Not run (not counted as passes): smoke-capture');
    expect(md).toContain('smoke-capture-genai-builder (genai-builder): 64 greedy steps, same tokens');
  }, 120_000);
});

describe('stage benches, GPU plan', () => {
  it('puts the added jobs last, selectable with one --only prefix', () => {
    const all = gpuJobs();
    const added = selectJobs(all, ['x-*']);
    expect(added.map((j) => j.stage).sort()).toEqual([
      'capture',
      'capture',
      'detector',
      'detector',
      'detector',
      'turn',
      'turn',
      'turn',
      'whisper',
      'whisper',
    ]);
    // Issue 48's static-KV jobs come after them, under their own prefix.
    const staticKv = selectJobs(all, ['skv-*']);
    expect(staticKv.map((j) => j.id)).toEqual([
      'skv-webgpu-llm-q4-capture-liquid-builder',
      'skv-webgpu-llm-q4f16-capture-liquid-builder',
      'skv-webgpu-llm-q4-capture-genai-builder',
      'skv-webgpu-llm-q4f16-capture-genai-builder',
    ]);
    expect(all.slice(-staticKv.length)).toEqual(staticKv);
    expect(all.slice(-added.length - staticKv.length, -staticKv.length)).toEqual(added);
    expect(selectJobs(all, ['x-webgpu-detector-fp16']).map((j) => j.id)).toEqual(['x-webgpu-detector-fp16']);
  });
});
