import type { MicCapture } from '../../models/audio/mic-capture';
import { SileroVadJs, type SileroWeights } from '../../models/vad/silero-js';
import type { ModelWorkerClient } from './model-client';
import { probeVad, type VadProbeResult } from './vad-probe';

/** How long the `hold-model-worker` fault keeps the model worker's thread (a long WASM job, e.g. ASR on the CPU). */
const MODEL_WORKER_HOLD_MS = 5_000;

export interface AsrProbeResult {
  backend: 'webgpu' | 'wasm';
  text: string | null;
  error: string | null;
  ms: number;
  turn?: { probability: number | null; error: string | null };
}

export interface LlmProbeResult {
  backend: 'webgpu' | 'wasm';
  error: string | null;
  firstPieceMs: number | null;
  pieceAtMs: number[];
  totalMs: number;
}

export interface ConversationProbeDeps {
  models: ModelWorkerClient;
  mic: MicCapture;
  vadWeights: Promise<SileroWeights>;
  /** The model worker's initialisation. */
  ready: () => Promise<unknown>;
  language: () => string;
}

/**
 * What tests, benches and the debug panel ask of a conversation's parts (test builds wire them up,
 * entrypoints/offscreen/test-hooks.ts): nothing here is on a turn's path.
 */
export class ConversationProbes {
  constructor(private readonly deps: ConversationProbeDeps) {}

  /** Runs the VAD on the live microphone for a while: how much of it was speech. Its own VAD state, not the turn's. */
  async vad(durationMs: number): Promise<VadProbeResult> {
    const vad = new SileroVadJs(await this.deps.vadWeights);
    return probeVad(this.deps.mic, (pcm) => vad.process(pcm), durationMs);
  }

  /** Live GPU buffers of the model worker's device (soak leak checks). */
  async gpuStats(): Promise<{ backend: 'webgpu' | 'wasm'; buffers: number; bytes: number }> {
    await this.deps.ready();
    return this.deps.models.gpuStats();
  }

  /**
   * One transcription of `pcm` in the model worker: its text or its error. With `withTurnCheck`, the end-of-turn model
   * is asked about the same clip first and in the same moment, as the engine does when a pause begins.
   */
  async asr(pcm: Float32Array, withTurnCheck = false): Promise<AsrProbeResult> {
    await this.deps.ready();
    const t0 = performance.now();
    const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
    const turn = withTurnCheck
      ? this.deps.models.endOfTurn(pcm, AbortSignal.timeout(120_000)).then(
          (probability) => ({ probability, error: null }),
          (err: unknown) => ({ probability: null, error: message(err) }),
        )
      : null;
    const asr = this.deps.models.transcribe(pcm, AbortSignal.timeout(120_000), this.deps.language()).then(
      (out) => ({ text: out.text, error: null }),
      (err: unknown) => ({ text: null, error: message(err) }),
    );
    const [heard, asked] = await Promise.all([asr, turn]);
    return {
      backend: this.deps.models.backend ?? ('wasm' as const),
      ...heard,
      ms: Math.round(performance.now() - t0),
      ...(asked ? { turn: asked } : {}),
    };
  }

  /**
   * One answer of the LLM in the model worker to `question` (no history, no tools), with the time of every piece it
   * streams: the model's own pace on the device the product chose, apart from a turn. Nothing of it is kept.
   */
  async llm(question: string): Promise<LlmProbeResult> {
    await this.deps.ready();
    const t0 = performance.now();
    const pieceAtMs: number[] = [];
    let error: string | null = null;
    try {
      for await (const piece of this.deps.models.generate([{ role: 'user', content: question }], AbortSignal.timeout(120_000)))
        if (piece.length > 0) pieceAtMs.push(Math.round((performance.now() - t0) * 10) / 10);
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    return {
      backend: this.deps.models.backend ?? ('wasm' as const),
      error,
      firstPieceMs: pieceAtMs[0] ?? null,
      pieceAtMs,
      // The pieces' precision: rounded coarser, the total could read before the last piece.
      totalMs: Math.round((performance.now() - t0) * 10) / 10,
    };
  }

  /** Fault injection (debug panel on): the model worker loses its GPU device, or a long job holds its thread. */
  faultModelWorker(fault: 'lose-gpu' | 'hold'): void {
    if (fault === 'lose-gpu') this.deps.models.loseDevice();
    else this.deps.models.holdThread(MODEL_WORKER_HOLD_MS);
  }
}
