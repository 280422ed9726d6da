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
  StoppingCriteria,
  type Tensor,
} from '@huggingface/transformers';
import { loadPinnedSpeechProcessor, loadPinnedTokenizer } from '../pinned-hub';
import { asrTunables } from '../../core/tunables';
import { AbortSignalCriteria } from '../llm/abort-criteria';
import { ASR_MODELS, type AsrModelSpec } from '../registry';
import { TokenLogProbRecorder } from './token-logprob-recorder';
import { verifyDraft, type DraftVerdict } from './draft-check';
import { asrSessionOptions, type AsrSessionDevices } from './session-devices';

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
  /** False runs every session on `device` (the product-loop bench's comparison); default: session-devices.ts. */
  splitSessions?: boolean;
}

export interface TranscribeOptions {
  /** ISO code for Whisper ('en', 'de', …); ignored by Moonshine (English only). */
  language?: string;
  signal?: AbortSignal;
  /**
   * Token ids of an earlier transcript of the same growing clip (its `ids`): Moonshine checks them in one decoder pass
   * and decodes only what follows the part it agrees with (models/asr/draft-check.ts). Same result as without.
   */
  draft?: readonly number[];
}

export interface Transcript {
  text: string;
  /** exp(mean log-prob of the emitted tokens, EOS included), in (0, 1]; null when nothing was decoded. */
  confidence: number | null;
  meanLogProb: number | null;
  /** Decoder tokens emitted (EOS included). */
  tokens: number;
  /** The transcript's token ids, EOS excluded: the draft for a later transcript of the same clip (Moonshine). */
  ids: number[];
  /** Draft tokens accepted by the decoder (0 without a draft). */
  draftAccepted: number;
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

/** Stops generate() after its first step when that step's decoder pass disagreed with the draft in its prompt. */
class DraftGate extends StoppingCriteria {
  verdict: DraftVerdict | null = null;

  constructor(private readonly check: () => DraftVerdict | null) {
    super();
  }

  override _call(inputIds: number[][]): boolean[] {
    this.verdict ??= this.check();
    const rejected = this.verdict !== null && this.verdict.correction !== null;
    return inputIds.map(() => rejected);
  }
}

type ForwardOutput = { logits: Tensor };

export class AsrRuntime {
  /** One transcription at a time: the draft check reads the decoder pass of the call in progress. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Logits of the first decoder pass of the transcription in progress (its prompt's rows), when it has a draft. */
  private firstPass: { logits: Float32Array; vocab: number } | null = null;
  private capturing = false;

  private constructor(
    private readonly asr: AutomaticSpeechRecognitionPipeline,
    readonly spec: AsrModelSpec,
    /** What each session runs on (session-devices.ts). */
    readonly devices: AsrSessionDevices,
  ) {
    // generate() keeps only the last row of each pass; the draft check needs every row of the prompt pass.
    const model = asr.model as unknown as { forward: (inputs: unknown) => Promise<ForwardOutput> };
    const forward = model.forward.bind(model);
    model.forward = async (inputs) => {
      const out = await forward(inputs);
      if (this.capturing && !this.firstPass) {
        const logits = out.logits.type === 'float32' ? out.logits : out.logits.to('float32');
        const vocab = logits.dims.at(-1)!;
        this.firstPass = { logits: Float32Array.from(logits.data as Float32Array), vocab };
      }
      return out;
    };
  }

  static async load(options: AsrLoadOptions): Promise<AsrRuntime> {
    const spec = ASR_MODELS[options.family];
    const repo = options.repo ?? spec.repo;
    const revision = options.revision ?? spec.revision;
    const tokenizer = await loadPinnedTokenizer(repo, revision);
    const processor = await loadPinnedSpeechProcessor(repo, revision, spec.family, tokenizer);
    const { device: devices, dtype } = asrSessionOptions(spec, options.device, options.splitSessions ?? true);
    const model = await AutoModelForSpeechSeq2Seq.from_pretrained(repo, {
      revision,
      device: devices,
      // Explicit per session: WebGPU would default to fp32 everywhere (docs/models.md).
      dtype: dtype as Record<string, 'fp32' | 'q4'>,
      ...(options.onProgress ? { progress_callback: options.onProgress } : {}),
    });
    const asr = new AutomaticSpeechRecognitionPipeline({ task: 'automatic-speech-recognition', model, tokenizer, processor });
    const runtime = new AsrRuntime(asr, spec, devices);
    if (options.warmUp ?? true) await runtime.transcribe(new Float32Array(SAMPLE_RATE));
    return runtime;
  }

  async transcribe(audio: Float32Array, options: TranscribeOptions = {}): Promise<Transcript> {
    const run = this.queue.then(() => this.transcribeNow(audio, options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async transcribeNow(audio: Float32Array, options: TranscribeOptions): Promise<Transcript> {
    const none: Transcript = { text: '', confidence: null, meanLogProb: null, tokens: 0, ids: [], draftAccepted: 0 };
    if (options.signal?.aborted || audio.length === 0) return none;
    const kwargs: Record<string, unknown> = { do_sample: false };
    if (options.signal) kwargs.stopping_criteria = [new AbortSignalCriteria(options.signal)];
    let maxNew = Infinity;
    if (this.spec.family === 'moonshine') {
      // The pipeline's own cap is floor(seconds)·6, i.e. 0 tokens for a short "yes".
      const seconds = audio.length / SAMPLE_RATE;
      maxNew = Math.max(asrTunables.minNewTokens, Math.ceil(seconds * asrTunables.maxTokensPerSecond));
    } else {
      kwargs.language = options.language ?? 'en';
      kwargs.task = 'transcribe';
    }
    const draft = this.spec.family === 'moonshine' ? (options.draft ?? []).slice(0, Math.max(0, maxNew - 1)) : [];
    if (draft.length === 0) return (await this.decode(audio, kwargs, [], maxNew, [])).transcript;

    const first = await this.decode(audio, kwargs, draft, maxNew, null);
    if (first.verdict?.correction === null) return first.transcript;
    if (options.signal?.aborted) {
      // Cancelled: only the part of the draft the decoder agreed with (and its correction) is worth keeping.
      const agreed = first.verdict ? [...draft.slice(0, first.verdict.accepted), first.verdict.correction!] : [];
      return { ...none, ids: agreed, draftAccepted: first.verdict?.accepted ?? 0 };
    }
    // No prompt pass was seen, so nothing in the draft is verified: decode from the start.
    if (!first.verdict) return (await this.decode(audio, kwargs, [], maxNew, [])).transcript;
    // The draft went astray at `accepted`: decode again from the agreed prefix and the decoder's own choice there.
    const { accepted, correction, logProbs } = first.verdict;
    const agreed = [...draft.slice(0, accepted), correction];
    return (await this.decode(audio, kwargs, agreed, maxNew, logProbs, accepted)).transcript;
  }

  /**
   * One generate() call with `prompt` after the start token. `known` holds the prompt's log-probs when it is already
   * verified; null asks for the check of the prompt as a draft (then the result carries the verdict).
   */
  private async decode(
    audio: Float32Array,
    kwargs: Record<string, unknown>,
    prompt: readonly number[],
    maxNew: number,
    known: number[] | null,
    accepted = known === null ? 0 : prompt.length,
  ): Promise<{ transcript: Transcript; verdict: DraftVerdict | null }> {
    const recorder = new TokenLogProbRecorder();
    const logitsProcessor = new LogitsProcessorList();
    logitsProcessor.push(recorder);
    const collector = new TokenCollector();
    const call: Record<string, unknown> = { ...kwargs, logits_processor: logitsProcessor, streamer: collector };
    const gate =
      known === null
        ? new DraftGate(() => (this.firstPass ? verifyDraft(this.firstPass.logits, this.firstPass.vocab, prompt) : null))
        : null;
    if (gate) call.stopping_criteria = [...((kwargs.stopping_criteria as StoppingCriteria[] | undefined) ?? []), gate];
    if (Number.isFinite(maxNew)) call.max_new_tokens = Math.max(1, maxNew - prompt.length);
    if (prompt.length > 0) call.decoder_input_ids = [[this.startToken(), ...prompt]];
    this.firstPass = null;
    this.capturing = gate !== null;
    let output: { text: string };
    try {
      output = (await this.asr(audio, call)) as { text: string };
    } finally {
      this.capturing = false;
      this.firstPass = null;
    }
    const generated = collector.ids;
    recorder.finish(generated.at(-1) ?? null);
    const promptLogProbs = known ?? gate?.verdict?.logProbs ?? [];
    const all = [...promptLogProbs, ...recorder.logProbs];
    const meanLogProb = all.length === 0 ? null : all.reduce((a, b) => a + b, 0) / all.length;
    const eos = this.eosToken();
    const ids = [...prompt, ...generated].filter((id) => id !== eos);
    const transcript: Transcript = {
      text: output.text.trim(),
      confidence: meanLogProb === null ? null : Math.exp(meanLogProb),
      meanLogProb,
      tokens: prompt.length + generated.length,
      ids,
      draftAccepted: gate ? (gate.verdict?.accepted ?? 0) : accepted,
    };
    return { transcript, verdict: gate?.verdict ?? null };
  }

  private startToken(): number {
    const config = (this.asr.model as unknown as { generation_config?: { decoder_start_token_id?: number } }).generation_config;
    const fromModel = (this.asr.model.config as unknown as { decoder_start_token_id?: number }).decoder_start_token_id;
    const id = config?.decoder_start_token_id ?? fromModel;
    if (typeof id !== 'number') throw new Error('the speech model names no decoder start token');
    return id;
  }

  private eosToken(): number | undefined {
    const id = (this.asr.model.config as unknown as { eos_token_id?: number | number[] }).eos_token_id;
    return Array.isArray(id) ? id[0] : id;
  }

  async dispose(): Promise<void> {
    await this.asr.dispose();
  }
}
