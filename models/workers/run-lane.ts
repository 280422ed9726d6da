/**
 * One `session.run` at a time per onnxruntime-web instance. The WebGPU execution provider does not support runs of
 * two sessions at once (one shared command encoder; onnxruntime reports crashes for concurrent runs), and the
 * asyncify WASM build cannot be entered again while a run is suspended awaiting the GPU: the product's pause, the
 * end-of-turn question and the speculative transcription started together, ended in "memory access out of bounds"
 * inside the runtime (docs/benchmarks.md, "The pause"). transformers.js chains the runs it makes itself, but not the
 * runs of our own sessions (Smart Turn, the detector) sharing its ORT, so every run of the instance goes through
 * this lane, in call order. On WASM nothing changes: a run there holds the thread to its end anyway.
 */

type Run = (this: unknown, ...args: unknown[]) => Promise<unknown>;

interface SessionClass {
  prototype: { run: Run };
}

const LANED = Symbol.for('sidetalk.runLane');

/** Makes every `run` of this InferenceSession class wait for the one before it (idempotent). */
export function serializeRuns(InferenceSession: SessionClass): void {
  const proto = InferenceSession.prototype as { run: Run; [LANED]?: true };
  if (proto[LANED]) return;
  const run = proto.run;
  let tail: Promise<unknown> = Promise.resolve();
  proto.run = function (this: unknown, ...args: unknown[]) {
    const result = tail.then(() => run.apply(this, args));
    // A failed run must not block the ones after it; its caller still sees the failure.
    tail = result.catch(() => undefined);
    return result;
  };
  proto[LANED] = true;
}

/** True once `serializeRuns` has been applied to this class. */
export function runsSerialized(InferenceSession: SessionClass): boolean {
  return (InferenceSession.prototype as { [LANED]?: true })[LANED] === true;
}
