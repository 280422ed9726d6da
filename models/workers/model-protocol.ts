/**
 * Messages between the offscreen document and the model worker (VAD + ASR + LLM on one ORT instance and one GPU
 * device). Requests are zod-validated inside the worker; a bad one gets a typed error event, never a crash. Every
 * request that expects a reply carries a `requestId` (assigned by models/workers/worker-client.ts) and every event of
 * that request echoes it; `cancel` names the request it stops.
 */
import { z } from 'zod';
import { ChatMessageSchema } from '../../core/conversation/chat-message';
import { TunableOverridesSchema } from '../../core/protocol/tunables';
import type { TunablesSnapshot } from '../../core/tunables';
import type { LlmDecodeStatus } from '../../core/protocol/status';

const Id = z.string().min(1).max(64);

export { ChatMessageSchema };

export const ModelWorkerRequestSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('init'),
    requestId: Id,
    wasmPaths: z.string().min(1),
    /** No WebGPU in this worker (a restart after the GPU device was lost). */
    forceWasm: z.boolean().optional(),
  }),
  z.object({
    type: z.literal('load'),
    requestId: Id,
    remoteHost: z.string().min(1),
    asrFamily: z.enum(['moonshine', 'whisper']),
    parts: z.array(z.enum(['asr', 'llm', 'turn'])).min(1),
    /** Force a backend (tests, or after the user picks CPU); default: WebGPU when healthy. */
    device: z.enum(['webgpu', 'wasm']).optional(),
  }),
  z.object({
    type: z.literal('asr'),
    requestId: Id,
    pcm: z.instanceof(Float32Array),
    language: z.string().max(8).optional(),
    /** Token ids of an earlier transcript of the same clip (models/asr/draft-check.ts). */
    draft: z.array(z.number().int().min(0).max(1_000_000)).max(448).optional(),
  }),
  /** P(the user has finished their turn) for the turn's audio so far (Smart Turn). */
  z.object({ type: z.literal('end-of-turn'), requestId: Id, pcm: z.instanceof(Float32Array) }),
  z.object({
    type: z.literal('llm'),
    requestId: Id,
    messages: z.array(ChatMessageSchema).min(1).max(400),
    tools: z.array(z.record(z.string(), z.unknown())).max(16).optional(),
    maxNewTokens: z.number().int().positive().max(2048).optional(),
  }),
  /**
   * Sentence embeddings of `texts` (page retrieval). The model loads on the first request, from `remoteHost`'s files
   * already in the weights cache (the offscreen document asks only once the optional bundle is downloaded).
   */
  z.object({
    type: z.literal('embed'),
    requestId: Id,
    remoteHost: z.string().min(1),
    texts: z.array(z.string().max(20_000)).min(1).max(256),
  }),
  z.object({ type: z.literal('cancel'), requestId: Id }),
  /** A port for the vision detector's own request/reply protocol (models/vision/vision-protocol.ts), so the
   * detector runs on this worker's one ORT instance and GPU device instead of opening a second pair. */
  z.object({ type: z.literal('vision-port'), port: z.instanceof(MessagePort) }),
  /** Live GPU buffers of this worker's device (leak checks). */
  z.object({ type: z.literal('gpu-stats'), requestId: Id }),
  /** Fault injection: lose the GPU device now (the offscreen allows it only with the debug panel on). */
  z.object({ type: z.literal('lose-device') }),
  /** Test builds: keep the worker's thread busy, as a long synchronous WASM run does. */
  z.object({ type: z.literal('hold'), ms: z.number().int().min(0).max(10_000) }),
  /** The owner's tunable overrides, sent by the offscreen document to every new worker and after every change. */
  z.object({ type: z.literal('tunables'), overrides: TunableOverridesSchema }),
  /** This worker's live tunables (the knob walk checks a change arrived). */
  z.object({ type: z.literal('tunables-snapshot'), requestId: Id }),
]);
export type ModelWorkerRequest = z.input<typeof ModelWorkerRequestSchema>;

export type ModelWorkerErrorCode =
  'bad-message' | 'not-ready' | 'load-failed' | 'asr-failed' | 'turn-failed' | 'llm-failed' | 'embed-failed' | 'device-lost';

/** What a `load` request can load: ASR, the LLM, the end-of-turn model. */
export type ModelPart = 'asr' | 'llm' | 'turn';

export type ModelWorkerEvent =
  | { type: 'ready'; requestId: string; backend: 'webgpu' | 'wasm'; fallbackReason: string | null; numThreads: number }
  | { type: 'load-progress'; part: ModelPart; file: string; loaded: number; total: number }
  | {
      type: 'loaded';
      requestId?: string;
      parts: ModelPart[];
      device: 'webgpu' | 'wasm';
      /** When the LLM was loaded: which path its decode steps take, and why the plain one (docs/llm-static-kv.md). */
      llmDecode?: LlmDecodeStatus;
    }
  | { type: 'asr-result'; requestId: string; text: string; confidence: number | null; ids: number[]; draftAccepted: number }
  | { type: 'end-of-turn'; requestId: string; probability: number }
  /** One unit vector per text, row after row in one buffer (transferred). */
  | { type: 'embeddings'; requestId: string; dim: number; vectors: Float32Array }
  | { type: 'llm-delta'; requestId: string; text: string }
  | {
      type: 'llm-done';
      requestId: string;
      text: string;
      promptTokens: number;
      cachedTokens: number;
      newTokens: number;
      aborted: boolean;
    }
  | { type: 'backend'; backend: 'wasm'; reason: string }
  /** The LLM's decode path changed after its load (a static step failed: later turns decode on the plain path). */
  | { type: 'llm-decode'; status: LlmDecodeStatus }
  | { type: 'gpu-stats'; requestId: string; backend: 'webgpu' | 'wasm'; buffers: number; bytes: number }
  | { type: 'tunables-snapshot'; requestId: string; values: TunablesSnapshot }
  | { type: 'error'; requestId?: string; code: ModelWorkerErrorCode; message: string };
