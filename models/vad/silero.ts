/**
 * Silero VAD v5 over an injected onnxruntime namespace (onnxruntime-node in tests, onnxruntime-web's WASM EP in the
 * offscreen worker; never the WebGPU EP, which returns wrong probabilities on some adapters).
 *
 * Graph contract (checked against @ricky0123/vad-web's silero_vad_v5.onnx): inputs `input` f32 [1, N],
 * `state` f32 [2, 1, 128], `sr` int64 scalar; outputs `output` f32 [1, 1] (P(speech)), `stateN` f32 [2, 1, 128].
 * The model accepts N = 512, but it was trained with each chunk preceded by the last 64 samples of the previous one
 * (N = 576); without that context speech scores collapse, so this runner always sends 64 + 512.
 */
import { FRAME_SAMPLES, VAD_SAMPLE_RATE } from '../../core/engine/audio-frames';

export const SILERO_CONTEXT_SAMPLES = 64;
const STATE_SIZE = 2 * 1 * 128;

/** The parts of a Tensor this runner reads. */
export interface OrtTensorLike {
  readonly data: unknown;
  readonly dims: readonly number[];
}

/** The parts of an onnxruntime namespace this runner uses; both onnxruntime-node and onnxruntime-web satisfy it. */
export interface OrtLike {
  Tensor: new (type: 'float32' | 'int64', data: Float32Array | BigInt64Array, dims: readonly number[]) => OrtTensorLike;
  InferenceSession: {
    create(model: Uint8Array, options?: Record<string, unknown>): Promise<OrtSessionLike>;
  };
}

export interface OrtSessionLike {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Record<string, OrtTensorLike>): Promise<Record<string, OrtTensorLike>>;
  release?(): Promise<void>;
}

export class SileroVad {
  private state = new Float32Array(STATE_SIZE);
  private context = new Float32Array(SILERO_CONTEXT_SAMPLES);
  private readonly sr: OrtTensorLike;
  private readonly input = new Float32Array(SILERO_CONTEXT_SAMPLES + FRAME_SAMPLES);

  private constructor(
    private readonly ort: OrtLike,
    private readonly session: OrtSessionLike,
  ) {
    this.sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(VAD_SAMPLE_RATE)]), []);
  }

  /** Loads the model bytes; `sessionOptions` is passed through (e.g. `{ executionProviders: ['wasm'] }`). */
  static async create(ort: OrtLike, modelBytes: Uint8Array, sessionOptions?: Record<string, unknown>): Promise<SileroVad> {
    const session = await ort.InferenceSession.create(modelBytes, sessionOptions);
    for (const name of ['input', 'state', 'sr']) {
      if (!session.inputNames.includes(name)) throw new Error(`Silero VAD: model lacks input "${name}"`);
    }
    for (const name of ['output', 'stateN']) {
      if (!session.outputNames.includes(name)) throw new Error(`Silero VAD: model lacks output "${name}"`);
    }
    return new SileroVad(ort, session);
  }

  /** P(speech) for one 512-sample 16 kHz frame; frames must be fed in order (the model is recurrent). */
  async process(frame: Float32Array): Promise<number> {
    if (frame.length !== FRAME_SAMPLES)
      throw new Error(`Silero VAD: frame must be ${FRAME_SAMPLES} samples, got ${frame.length}`);
    this.input.set(this.context, 0);
    this.input.set(frame, SILERO_CONTEXT_SAMPLES);
    const out = await this.session.run({
      input: new this.ort.Tensor('float32', this.input.slice(), [1, this.input.length]),
      state: new this.ort.Tensor('float32', this.state, [2, 1, 128]),
      sr: this.sr,
    });
    const prob = out.output?.data;
    const next = out.stateN?.data;
    if (!(prob instanceof Float32Array) || !(next instanceof Float32Array) || next.length !== STATE_SIZE) {
      throw new Error('Silero VAD: unexpected outputs');
    }
    this.state = next.slice();
    this.context = frame.slice(FRAME_SAMPLES - SILERO_CONTEXT_SAMPLES);
    return prob[0] ?? 0;
  }

  /** Forget the recurrent state, e.g. after the mic was off. */
  reset(): void {
    this.state = new Float32Array(STATE_SIZE);
    this.context = new Float32Array(SILERO_CONTEXT_SAMPLES);
  }

  async release(): Promise<void> {
    await this.session.release?.();
  }
}
