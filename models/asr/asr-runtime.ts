/**
 * Speech recognition through the transformers.js 'automatic-speech-recognition' pipeline, assembled from parts loaded at
 * the pinned commit (models/pinned-hub.ts says why not `pipeline()`): Moonshine base (English
 * default) or Whisper base (multilingual), explicit per-session dtypes, one 16 kHz Float32Array segment per call.
 * Returns the text and a confidence = exp(mean token log-prob), measured by TokenLogProbRecorder on the logits the
 * decoder actually chose from. Never logs transcripts.
 */
import {
  AutoModelForSpeechSeq2Seq,
  AutomaticSpeechRecognitionPipeline,
  BaseStreamer,
  LogitsProcessorList,
} from '@huggingface/transformers';
import { loadPinnedSpeechProcessor, loadPinnedTokenizer } from '../pinned-hub';
import { asrTunables } from '../../core/tunables';
import { AbortSignalCriteria } from '../llm/abort-criteria';
import { ASR_MODELS, asrDtypeMap, type AsrModelSpec } from '../registry';
import { TokenLogProbRecorder } from './token-logprob-recorder';

export type AsrFamily = 'moonshine' | 'whisper';
export type AsrDevice = 'webgpu' | 'wasm' | 'cpu';

export interface AsrLoadOptions {
  family: AsrFamily;
  device: AsrDevice;
  /** Overrides for tests or a mirror; defaults come from models/registry.ts. */
  repo?: string;
  revision?: string;
  onProgress?: (event: unknown) => void;
  /** Transcribe 1 s of silence after loading so the first utterance does not pay kernel compilation. */
  warmUp?: boolean;
}

export interface TranscribeOptions {
  /** ISO code for Whisper ('en', 'de', …); ignored by Moonshine (English only). */
  language?: string;
  signal?: AbortSignal;
}

export interface Transcript {
  text: string;
  /** exp(mean log-prob of the emitted tokens, EOS included), in (0, 1]; null when nothing was decoded. */
  confidence: number | null;
  meanLogProb: number | null;
  /** Decoder tokens emitted (EOS included). */
  tokens: number;
}

/** Collects the ids generate() emits; its first put() is the decoder prompt, every later one a new token. */
class TokenCollector extends BaseStreamer {
  private sawPrompt = false;
  readonly ids: number[] = [];

  override put(value: bigint[][]): void {
    if (!this.sawPrompt) {
      this.sawPrompt = true;
      return;
    }
    const id = value[0]?.[0];
    if (id !== undefined) this.ids.push(Number(id));
  }

  override end(): void {}
}

const SAMPLE_RATE = 16000;

export class AsrRuntime {
  private constructor(
    private readonly asr: AutomaticSpeechRecognitionPipeline,
    readonly spec: AsrModelSpec,
    readonly device: AsrDevice,
  ) {}

  static async load(options: AsrLoadOptions): Promise<AsrRuntime> {
    const spec = ASR_MODELS[options.family];
    const repo = options.repo ?? spec.repo;
    const revision = options.revision ?? spec.revision;
    const tokenizer = await loadPinnedTokenizer(repo, revision);
    const processor = await loadPinnedSpeechProcessor(repo, revision, spec.family, tokenizer);
    const model = await AutoModelForSpeechSeq2Seq.from_pretrained(repo, {
      revision,
      device: options.device,
      // Explicit per session: WebGPU would default to fp32 everywhere (docs/models.md).
      dtype: asrDtypeMap(spec) as Record<string, 'fp32' | 'q4'>,
      ...(options.onProgress ? { progress_callback: options.onProgress } : {}),
    });
    const asr = new AutomaticSpeechRecognitionPipeline({ task: 'automatic-speech-recognition', model, tokenizer, processor });
    const runtime = new AsrRuntime(asr, spec, options.device);
    if (options.warmUp ?? true) await runtime.transcribe(new Float32Array(SAMPLE_RATE));
    return runtime;
  }

  async transcribe(audio: Float32Array, options: TranscribeOptions = {}): Promise<Transcript> {
    if (options.signal?.aborted || audio.length === 0) return { text: '', confidence: null, meanLogProb: null, tokens: 0 };
    const recorder = new TokenLogProbRecorder();
    const logitsProcessor = new LogitsProcessorList();
    logitsProcessor.push(recorder);
    const collector = new TokenCollector();
    const kwargs: Record<string, unknown> = {
      logits_processor: logitsProcessor,
      streamer: collector,
      do_sample: false,
      ...(options.signal ? { stopping_criteria: [new AbortSignalCriteria(options.signal)] } : {}),
    };
    if (this.spec.family === 'moonshine') {
      // The pipeline's own cap is floor(seconds)·6, i.e. 0 tokens for a short "yes".
      const seconds = audio.length / SAMPLE_RATE;
      kwargs.max_new_tokens = Math.max(asrTunables.minNewTokens, Math.ceil(seconds * asrTunables.maxTokensPerSecond));
    } else {
      kwargs.language = options.language ?? 'en';
      kwargs.task = 'transcribe';
    }
    const output = (await this.asr(audio, kwargs)) as { text: string };
    const meanLogProb = recorder.finish(collector.ids.at(-1) ?? null);
    return {
      text: output.text.trim(),
      confidence: meanLogProb === null ? null : Math.exp(meanLogProb),
      meanLogProb,
      tokens: collector.ids.length,
    };
  }

  async dispose(): Promise<void> {
    await this.asr.dispose();
  }
}
