/**
 * One run at a time per ORT instance (models/workers/run-lane.ts): runs of different sessions of the class start in
 * call order, each after the one before it settled, a failure does not block the next, and applying it twice changes
 * nothing. The browser proof (two WebGPU runs at once hang the model worker without it) is
 * tests/e2e/asr-gpu.e2e.ts, "a pause: …"; here the workers' set-up is checked to apply it.
 */
import { describe, expect, it } from 'vitest';
import { runsSerialized, serializeRuns } from '../../../models/workers/run-lane';

/** A session whose run takes `ms` of real time and records when it was inside. */
function sessionClass() {
  const spans: { name: string; start: number; end: number }[] = [];
  class Session {
    constructor(readonly name: string) {}
    async run(ms: number, fail = false): Promise<string> {
      const span = { name: this.name, start: performance.now(), end: 0 };
      spans.push(span);
      await new Promise((r) => setTimeout(r, ms));
      span.end = performance.now();
      if (fail) throw new Error(`${this.name} failed`);
      return this.name;
    }
  }
  return {
    Session: Session as unknown as { new (name: string): { run(ms: number, fail?: boolean): Promise<string> }; prototype: never },
    spans,
  };
}

const overlaps = (spans: { start: number; end: number }[]) =>
  spans.some((a, i) => spans.some((b, j) => i < j && a.start < b.end && b.start < a.end));

describe('the run lane', () => {
  it('without it, runs of two sessions overlap (the hazard it removes)', async () => {
    const { Session, spans } = sessionClass();
    await Promise.all([new Session('turn').run(30), new Session('asr').run(30)]);
    expect(overlaps(spans)).toBe(true);
  });

  it('with it, runs of any session of the class go one at a time, in call order, and a failure does not block', async () => {
    const { Session, spans } = sessionClass();
    serializeRuns(Session);
    serializeRuns(Session); // idempotent: one lane, not two
    expect(runsSerialized(Session)).toBe(true);
    const turn = new Session('turn');
    const asr = new Session('asr');
    const results = await Promise.allSettled([turn.run(30), asr.run(10, true), turn.run(5), asr.run(20)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('asr failed'));
    expect(spans.map((s) => s.name)).toEqual(['turn', 'asr', 'turn', 'asr']);
    expect(overlaps(spans)).toBe(false);
  });

  it('the model worker applies it to its onnxruntime-web instance', async () => {
    const { sharedOrtInstance } = await import('../../../models/workers/ort-setup');
    expect(runsSerialized(sharedOrtInstance.InferenceSession as never)).toBe(true);
  });
});
