/**
 * Smart Turn v3.2, the end-of-turn model: after a short pause it says how likely the user has finished speaking,
 * from the sound of the last 8 s (intonation, a trailing "and…"), before any transcript exists. It runs on whichever EP
 * the session options name (the model worker: WebGPU when healthy, else WASM). Contract, from the upstream export and inference code (docs/models.md § Smart
 * Turn): input `input_features` float32 [batch, 80, 800] — Whisper log-mel of the normalised 8 s window — and output
 * `logits` float32 [batch, 1], which despite its name already holds the sigmoid probability of "complete".
 */
import { WhisperLogMel } from '../../core/turn/log-mel';
import { endOfTurnWindow } from '../../core/turn/turn-window';
import type { OrtLike, OrtSessionLike } from '../ort-like';

export const SMART_TURN_INPUT = 'input_features';
export const SMART_TURN_OUTPUT = 'logits';
export const SMART_TURN_MEL_BINS = 80;
export const SMART_TURN_FRAMES = 800;

/** Whisper log-mel [80 × 800] of a prepared 8 s window (core/turn/log-mel.ts). */
export type LogMel = (window: Float32Array) => Float32Array;

export class SmartTurn {
  private constructor(
    private readonly ort: OrtLike,
    private readonly session: OrtSessionLike,
    private readonly logMel: LogMel,
  ) {}

  /** Loads the model bytes (e.g. `{ executionProviders: ['wasm'] }`); refuses a graph with another contract. */
  static async create(ort: OrtLike, modelBytes: Uint8Array, sessionOptions?: Record<string, unknown>, logMel?: LogMel) {
    const session = await ort.InferenceSession.create(modelBytes, sessionOptions);
    if (!session.inputNames.includes(SMART_TURN_INPUT)) {
      throw new Error(`Smart Turn: the model has no input "${SMART_TURN_INPUT}" (it has ${session.inputNames.join(', ')})`);
    }
    if (!session.outputNames.includes(SMART_TURN_OUTPUT)) {
      throw new Error(`Smart Turn: the model has no output "${SMART_TURN_OUTPUT}" (it has ${session.outputNames.join(', ')})`);
    }
    if (!logMel) {
      const mel = new WhisperLogMel();
      logMel = (window) => mel.compute(window);
    }
    return new SmartTurn(ort, session, logMel);
  }

  /** P(the user has finished their turn) for the turn's audio so far (16 kHz mono, any length). */
  async completeProbability(audio16k: Float32Array): Promise<number> {
    const features = this.logMel(endOfTurnWindow(audio16k));
    const input = new this.ort.Tensor('float32', features, [1, SMART_TURN_MEL_BINS, SMART_TURN_FRAMES]);
    const out = await this.session.run({ [SMART_TURN_INPUT]: input });
    const p = (out[SMART_TURN_OUTPUT]?.data as Float32Array | undefined)?.[0];
    if (p === undefined || !Number.isFinite(p)) throw new Error('Smart Turn: the model returned no probability');
    return Math.min(1, Math.max(0, p));
  }

  async release(): Promise<void> {
    await this.session.release?.();
  }
}
