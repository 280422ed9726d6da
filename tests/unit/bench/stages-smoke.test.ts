/**
 * CI check of the stage benches (bench/stages): the smoke plan (tiny LFM2-, Pocket-TTS- and Moonshine-shaped graphs
 * with the real models' operators, onnxruntime-web's WASM EP) must run and produce valid outputs — no all-zero or
 * non-finite tensor — and a report. Timings are printed by the bench, never asserted here.
 */
import { describe, expect, it } from 'vitest';
import { checkTensor, isValid } from '../../../bench/stages/measure';
import { toFloat16 } from '../../../bench/stages/onnx-graph';
import { smokeJobs } from '../../../bench/stages/plans';
import { renderMarkdown } from '../../../bench/stages/report';
import { defaultDistDir, runInProcess } from '../../../bench/stages/run';

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
    const doc = await runInProcess(smokeJobs(), { distDir: defaultDistDir(), dawnToggles: [], liftoffOnly: true, log: () => {} }, 'smoke');
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
    const md = renderMarkdown(doc);
    for (const heading of ['LLM (LFM2.5-1.2B-shaped)', 'Pocket TTS', 'ASR (Moonshine-base-shaped)']) expect(md).toContain(heading);
  }, 120_000);
});
