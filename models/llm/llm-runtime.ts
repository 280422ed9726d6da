/**
 * The chat LLM: tokenizer + causal LM through transformers.js with an explicit dtype per backend, streaming text deltas
 * (special tokens kept, so tool-call markers reach the tool parser), abort via AbortSignal, exact-prefix KV reuse
 * across turns and history compaction. One generation at a time (transformers.js serialises sessions anyway).
 * Decode steps go through the static-KV graph with graph capture where it is usable (static-path.ts), through
 * transformers.js on the plain graph otherwise; `decodeStatus` says which and why. Never logs prompt or output text.
 */
import {
  AutoModelForCausalLM,
  DynamicCache,
  TextStreamer,
  type PreTrainedModel,
  type PreTrainedTokenizer,
  type Tensor,
} from '@huggingface/transformers';
import { llmTunables } from '../../core/tunables';
import { dtypeSuffix, LLM_BUNDLE, LLM_MODEL } from '../registry';
import { loadPinnedTokenizer, pinnedBytes, withPinnedFileReplaced } from '../pinned-hub';

/** The pinned LLM repo keeps its chat template in chat_template.jinja (docs/models.md). */
const LLM_HAS_TEMPLATE_FILE = LLM_BUNDLE.files.some((f) => f.role === 'chat_template');
/** The pinned graph keeps its weights in one external data file (`model_data`). */
const LLM_HAS_EXTERNAL_DATA = LLM_BUNDLE.files.some((f) => f.role === 'model_data');
import { AbortSignalCriteria } from './abort-criteria';
import { compactHistory, type ChatMessage } from './compaction';
import { isStrictPrefix, PrefixCache } from './prefix-cache';
import { SystemCheckpoint, type OrtTensorFactory } from './system-checkpoint';
import type { DecodeStatus, StaticKvMode } from './decode-path';
import { openStaticPath, type StaticPath } from './static-path';
import { generateStatic, prefillIds } from './static-generate';
import { ALREADY_LAST, keepLastLogits, type LastLogitsRewrite } from './last-logits';
import type { OrtClasses, StaticDecoder } from './static-kv/static-decoder';

export type { ChatMessage } from './compaction';
export type LlmDevice = 'webgpu' | 'wasm' | 'cpu';

export interface LlmLoadOptions {
  device: LlmDevice;
  repo?: string;
  revision?: string;
  dtype?: string;
  /** transformers.js progress events (download bytes per file). */
  onProgress?: (event: unknown) => void;
  /** Run one short generation after loading so the first real turn does not pay shader/kernel compilation. */
  warmUp?: boolean;
  /** The decode path: 'auto' (captured on WebGPU, plain elsewhere), 'static' (no capture, any backend), 'plain'. */
  staticKv?: StaticKvMode;
  /** Keep the system prompt's cache for later turns (system-checkpoint.ts); default on. */
  systemCheckpoint?: boolean;
  /** Rewrite the plain graph to compute the last position's logits only (last-logits.ts); default on. */
  lastLogits?: boolean;
  /**
   * The onnxruntime instance transformers.js runs on, for the static-KV session; default: the one the extension
   * registers at globalThis[Symbol.for('onnxruntime')] (docs/architecture.md).
   */
  ort?: OrtClasses;
}

export interface GenerateOptions {
  tools?: object[];
  maxNewTokens?: number;
  signal?: AbortSignal;
  /** Called with each decoded text piece as soon as the streamer releases it. */
  onDelta?: (text: string) => void;
}

export interface GenerateStats {
  /** Tokens of the rendered prompt (after compaction). */
  promptTokens: number;
  /** Prompt tokens served from the previous turn's cache (not recomputed). */
  cachedTokens: number;
  /** Prompt tokens actually fed in the prefill run. */
  prefillTokens: number;
  newTokens: number;
  aborted: boolean;
  /** Messages dropped from the start of the history to fit the budget. */
  compactedMessages: number;
}

export interface GenerateResult {
  text: string;
  stats: GenerateStats;
}

type ChatTemplateOutput = { input_ids: Tensor; attention_mask: Tensor };

/** Below this the system prompt's own prefill run costs more than it saves (docs/llm-static-kv.md). */
const SYSTEM_CHECKPOINT_MIN_TOKENS = 32;

function idsOf(t: Tensor): number[] {
  return (t.tolist() as bigint[][])[0]!.map(Number);
}

export class LlmRuntime {
  private readonly prefix = new PrefixCache<InstanceType<typeof DynamicCache>>();
  private checkpoint = new SystemCheckpoint(null);
  /** Off only for benches and tests that compare against a runtime without it (LlmLoadOptions.systemCheckpoint). */
  private useCheckpoint = true;
  private busy = false;
  private decoder: StaticDecoder | null = null;
  private status: DecodeStatus = { decode: 'plain', plainReason: 'not checked yet' };
  /** Why prompts compute every position's logits (last-logits.ts), when they do; kept across decode path changes. */
  private logitsNote: string | undefined;
  /** The load-time check's numbers, when it ran (benches report them). */
  staticCheck: StaticPath['check'] | null = null;

  private constructor(
    readonly tokenizer: PreTrainedTokenizer,
    readonly model: PreTrainedModel,
    readonly device: LlmDevice,
  ) {}

  /** Which path decode steps take, and why the plain one when it is. */
  get decodeStatus(): DecodeStatus {
    return { ...this.status };
  }

  static async load(options: LlmLoadOptions): Promise<LlmRuntime> {
    const repo = options.repo ?? LLM_MODEL.repo;
    const common = { revision: options.revision ?? LLM_MODEL.revision, progress_callback: options.onProgress };
    // Not AutoTokenizer: in 4.3.2 it probes tokenizer_config.json at `main` (models/pinned-hub.ts).
    const tokenizer = await loadPinnedTokenizer(repo, common.revision, { chatTemplateFile: LLM_HAS_TEMPLATE_FILE });
    const load = () =>
      AutoModelForCausalLM.from_pretrained(repo, {
        ...common,
        device: options.device,
        // Always explicit: transformers' WebGPU default is fp32 (4× the download). See models/registry.ts.
        dtype: (options.dtype ?? LLM_MODEL.dtype) as 'q4',
        // The pinned manifest lists the graph's external data file; say so rather than rely on config.json declaring it
        // (unverified for the pinned commit, docs/models.md): without it transformers.js never fetches `_data`.
        ...(LLM_HAS_EXTERNAL_DATA ? { use_external_data_format: true } : {}),
      });
    const graphFile = `onnx/model${dtypeSuffix(options.dtype ?? LLM_MODEL.dtype)}.onnx`;
    let lastLogits = options.lastLogits === false ? null : await lastLogitsGraph(repo, common.revision, graphFile);
    let model: PreTrainedModel;
    if (lastLogits?.ok) {
      try {
        model = await withPinnedFileReplaced(repo, common.revision, graphFile, lastLogits.onnx, load);
      } catch (e) {
        // The published graph, as before the rewrite existed; the status says why (a real load failure fails again).
        const why = (e instanceof Error ? e.message : String(e)).slice(0, 120);
        lastLogits = { ok: false, reason: `the rewritten graph did not load (${why})` };
        model = await load();
      }
    } else model = await load();
    const runtime = new LlmRuntime(tokenizer, model, options.device);
    runtime.logitsNote = allLogitsNote(lastLogits);
    const ort = options.ort ?? ((globalThis as Record<symbol, unknown>)[Symbol.for('onnxruntime')] as OrtClasses | undefined);
    runtime.checkpoint = new SystemCheckpoint((ort?.Tensor as unknown as OrtTensorFactory | undefined) ?? null);
    runtime.useCheckpoint = options.systemCheckpoint ?? true;
    if (options.warmUp ?? true) await runtime.warmUp();
    const path = await openStaticPath({
      mode: options.staticKv ?? 'auto',
      device: options.device,
      ort: options.ort ?? ((globalThis as Record<symbol, unknown>)[Symbol.for('onnxruntime')] as OrtClasses | undefined) ?? null,
      model,
      repo,
      revision: common.revision,
      dtype: options.dtype ?? LLM_MODEL.dtype,
      externalData: LLM_HAS_EXTERNAL_DATA,
      checkPrompt: idsOf(runtime.render([{ role: 'user', content: 'Hello! Who are you?' }]).input_ids),
    });
    runtime.decoder = path.decoder;
    runtime.status = path.status;
    if (runtime.logitsNote) runtime.status.allLogits = runtime.logitsNote;
    runtime.staticCheck = path.check ?? null;
    return runtime;
  }

  /** One token on a tiny prompt; the cache it builds is discarded. */
  async warmUp(): Promise<void> {
    await this.generate([{ role: 'user', content: 'hi' }], { maxNewTokens: 1 });
    await this.prefix.clear();
  }

  /** Prompt length in tokens of `messages` rendered with the chat template (generation prompt included). */
  countTokens(messages: readonly ChatMessage[], tools?: object[]): number {
    return this.render(messages, tools).input_ids.dims[1]!;
  }

  private render(messages: readonly ChatMessage[], tools?: object[], generationPrompt = true): ChatTemplateOutput {
    return this.tokenizer.apply_chat_template([...messages], {
      add_generation_prompt: generationPrompt,
      tokenize: true,
      return_dict: true,
      ...(tools && tools.length > 0 ? { tools } : {}),
    }) as unknown as ChatTemplateOutput;
  }

  async generate(messages: readonly ChatMessage[], options: GenerateOptions = {}): Promise<GenerateResult> {
    if (this.busy) throw new Error('LlmRuntime: a generation is already running');
    this.busy = true;
    try {
      return await this.generateUnlocked(messages, options);
    } finally {
      this.busy = false;
    }
  }

  private async generateUnlocked(messages: readonly ChatMessage[], options: GenerateOptions): Promise<GenerateResult> {
    const maxNewTokens = options.maxNewTokens ?? llmTunables.maxNewTokens;
    const budget = llmTunables.contextTokenBudget - maxNewTokens;
    const compacted = compactHistory(messages, (m) => this.countTokens(m, options.tools), budget, llmTunables.compactTargetRatio);
    const inputs = this.render(compacted.messages, options.tools);
    const promptIds = idsOf(inputs.input_ids);
    const stats: GenerateStats = {
      promptTokens: promptIds.length,
      cachedTokens: 0,
      prefillTokens: 0,
      newTokens: 0,
      aborted: options.signal?.aborted ?? false,
      compactedMessages: compacted.dropped,
    };
    if (stats.aborted) return { text: '', stats };

    let taken: { cache: InstanceType<typeof DynamicCache> | null; cachedTokens: number } = await this.prefix.take(promptIds);
    if (!taken.cache) taken = this.checkpoint.take(promptIds) ?? { cache: null, cachedTokens: 0 };
    // The turn that builds the checkpoint computes its tokens itself: they are prefilled, not served from a cache.
    if (!taken.cache && this.useCheckpoint)
      taken = { cache: await this.fromSystemPrompt(compacted.messages, options.tools, promptIds), cachedTokens: 0 };
    const cache = taken.cache ?? new DynamicCache();
    stats.cachedTokens = taken.cachedTokens;
    stats.prefillTokens = promptIds.length - taken.cachedTokens;

    const eos = this.tokenizer.eos_token;
    let text = '';
    const streamer = new TextStreamer(this.tokenizer, {
      skip_prompt: true,
      skip_special_tokens: false, // tool-call markers are special tokens and must survive
      callback_function: (piece: string) => {
        // The streamer releases each special token alone (#1520); the end-of-turn marker is not content.
        if (piece === eos || piece.length === 0) return;
        text += piece;
        options.onDelta?.(piece);
      },
    });
    let sequence: number[];
    const decoder = this.decoder && promptIds.length + maxNewTokens <= this.decoder.capacity ? this.decoder : null;
    try {
      if (decoder) {
        sequence = await generateStatic({
          model: this.model,
          decoder,
          inputs,
          promptIds,
          cache,
          maxNewTokens,
          repetitionPenalty: llmTunables.repetitionPenalty,
          streamer,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(this.status.plainFault ? { firstOnStatic: true } : {}),
        });
      } else sequence = await this.generatePlain(inputs, cache, maxNewTokens, streamer, options.signal);
    } catch (error) {
      await cache.dispose(); // state unknown after a failed run: never reuse it
      if (decoder) await this.dropStaticPath(error);
      throw error;
    }
    stats.newTokens = sequence.length - promptIds.length;
    stats.aborted = options.signal?.aborted ?? false;
    this.prefix.store(cache, sequence);
    return { text, stats };
  }

  /**
   * No cache serves this prompt: when it starts with system messages, their prefill becomes the checkpoint every later
   * turn starts from (system-checkpoint.ts), and this turn goes on from it. Otherwise an empty cache.
   */
  private async fromSystemPrompt(
    messages: readonly ChatMessage[],
    tools: object[] | undefined,
    promptIds: readonly number[],
  ): Promise<InstanceType<typeof DynamicCache> | null> {
    const end = messages.findIndex((m) => m.role !== 'system');
    if (end <= 0) return null;
    const ids = idsOf(this.render(messages.slice(0, end), tools, false).input_ids);
    // Long enough to be worth a second prefill run, and followed by the rest of the prompt.
    if (ids.length < SYSTEM_CHECKPOINT_MIN_TOKENS || !isStrictPrefix(ids, promptIds)) return null;
    const cache = new DynamicCache();
    await prefillIds(this.model, ids, cache);
    if (await this.checkpoint.keep(cache, ids)) return cache;
    await cache.dispose();
    return null;
  }

  /** A failed static turn: later turns decode on the plain path, and the status says why. */
  private async dropStaticPath(error: unknown): Promise<void> {
    const decoder = this.decoder;
    this.decoder = null;
    const message = error instanceof Error ? error.message : String(error);
    const { plainFault } = this.status;
    this.status = {
      decode: 'plain',
      plainReason: `a static decode step failed: ${message.slice(0, 160)}`,
      ...(plainFault ? { plainFault } : {}),
      ...(this.logitsNote ? { allLogits: this.logitsNote } : {}),
    };
    await decoder?.release().catch(() => undefined);
  }

  private async generatePlain(
    inputs: ChatTemplateOutput,
    cache: InstanceType<typeof DynamicCache>,
    maxNewTokens: number,
    streamer: TextStreamer,
    signal: AbortSignal | undefined,
  ): Promise<number[]> {
    const out = (await this.model.generate({
      ...inputs,
      past_key_values: cache,
      max_new_tokens: maxNewTokens,
      do_sample: false,
      repetition_penalty: llmTunables.repetitionPenalty,
      streamer,
      ...(signal ? { stopping_criteria: [new AbortSignalCriteria(signal)] } : {}),
    })) as Tensor;
    return idsOf(out);
  }

  /** Drops the cached prefix and the system prompt's checkpoint (e.g. a new conversation). */
  async resetCache(): Promise<void> {
    await this.prefix.clear();
    await this.checkpoint.clear();
  }

  async dispose(): Promise<void> {
    await this.prefix.clear();
    await this.checkpoint.clear();
    // After a GPU loss the capture session may fail to release; the model below must still go.
    await this.decoder?.release().catch(() => undefined);
    this.decoder = null;
    await this.model.dispose();
  }
}

/** The plain graph with last-position logits (last-logits.ts), or why not; a graph that cannot be read is a reason too. */
async function lastLogitsGraph(repo: string, revision: string, file: string): Promise<LastLogitsRewrite> {
  try {
    return keepLastLogits(await pinnedBytes(repo, revision, file));
  } catch (e) {
    return { ok: false, reason: `the graph could not be read: ${(e instanceof Error ? e.message : String(e)).slice(0, 120)}` };
  }
}

/**
 * The status's note when a prompt's prefill computes the logits of every position; none when it computes one, either
 * through the rewrite or because the graph takes `num_logits_to_keep` (transformers.js passes 1), or when turned off.
 */
function allLogitsNote(r: LastLogitsRewrite | null): string | undefined {
  if (!r || r.ok || Object.values<string>(ALREADY_LAST).includes(r.reason)) return undefined;
  return r.reason;
}
