import { z } from 'zod';

export const PermissionStateSchema = z.enum(['granted', 'denied', 'prompt', 'unknown']);
export type PermissionStateName = z.infer<typeof PermissionStateSchema>;

export const GpuInfoSchema = z.object({
  available: z.boolean(),
  vendor: z.string(),
  architecture: z.string(),
  description: z.string(),
  isFallbackAdapter: z.boolean(),
  shaderF16: z.boolean(),
  error: z.string().optional(),
});
export type GpuInfo = z.infer<typeof GpuInfoSchema>;

/**
 * Which path the LLM's decode steps take (docs/llm-static-kv.md): 'captured' (the static-KV graph replayed as one
 * recorded GPU graph per step), 'static' (that graph without capture: tests and benches), or 'plain' (transformers.js
 * on the pinned graph), with the reason.
 */
export const LlmDecodeStatusSchema = z.object({
  decode: z.enum(['captured', 'static', 'plain']),
  plainReason: z.string().max(240).optional(),
  plainFault: z.string().max(240).optional(),
  allLogits: z.string().max(240).optional(),
});
export type LlmDecodeStatus = z.infer<typeof LlmDecodeStatusSchema>;

/**
 * The model worker (speech recognition, end of turn, LLM): its runtime once started ('starting' until then), why it is
 * not on WebGPU when it is not, and which models it holds.
 */
export const SpeechModelsStatusSchema = z.object({
  runtime: z.enum(['starting', 'webgpu', 'wasm']),
  reason: z.string().max(200).optional(),
  loaded: z.array(z.enum(['asr', 'llm', 'turn'])).max(3),
});
export type SpeechModelsStatus = z.infer<typeof SpeechModelsStatusSchema>;

/** What the offscreen document can do right now; shown by the side panel and popup. */
export const OffscreenStatusSchema = z.object({
  startedAt: z.number(),
  crossOriginIsolated: z.boolean(),
  gpu: GpuInfoSchema,
  mic: z.object({
    capturing: z.boolean(),
    sampleRate: z.number().nullable(),
    /** Live audio capture tracks of this document, counted from the streams themselves (the truth behind the badge). */
    live: z.number().int().nonnegative().optional(),
    error: z.string().optional(),
  }),
  /** Live capture tracks of this document, counted from the streams themselves (the truth behind the camera light). */
  camera: z.object({ live: z.number().int().nonnegative() }).optional(),
  /**
   * Where the voice (Pocket TTS) runs, once loaded; `reason` says why it left WebGPU mid-session, `gpuRefused` why a
   * load that could use the GPU voice stayed on the CPU (a failed self-test: docs/tts.md § The GPU voice).
   */
  tts: z
    .object({
      backend: z.enum(['wasm', 'webgpu']),
      threads: z.number().int().positive(),
      reason: z.string().max(200).optional(),
      gpuRefused: z.string().max(200).optional(),
      /** WASM: Mimi in its own ORT instance, overlapped with the flow LM, or one instance (and why). */
      decodeLoop: z
        .object({
          kind: z.enum(['overlapped', 'single']),
          decoderThreads: z.number().int().positive().optional(),
          reason: z.string().max(300).optional(),
        })
        .optional(),
      /** On WASM: the flow LM's caches sized to each chunk, or at the declared capacity (docs/tts.md). */
      flowCache: z.enum(['chunk', 'declared']).optional(),
    })
    .nullable()
    .optional(),
  /** The LLM's decode path, once it has loaded. */
  llm: LlmDecodeStatusSchema.nullable().optional(),
  /** The speech models' worker, once the conversation exists (null before). */
  speech: SpeechModelsStatusSchema.nullable().optional(),
});
export type OffscreenStatus = z.infer<typeof OffscreenStatusSchema>;

/** The background's view of the whole extension, one snapshot for every UI. */
export const AppStatusSchema = z.object({
  offscreen: z.union([OffscreenStatusSchema, z.null()]),
  offscreenCreatedCount: z.number().int().nonnegative(),
  /** A side panel is open: only then may the microphone or the camera be turned on (core/lifecycle/listening-lease.ts). */
  panelOpen: z.boolean().optional(),
});
export type AppStatus = z.infer<typeof AppStatusSchema>;
