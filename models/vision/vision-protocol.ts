/**
 * Messages between the offscreen document and the vision detector, served on a MessagePort by the model worker
 * (models/workers/model-host.ts). Validated with zod on both sides. Frames travel as transferred RGBA buffers and never
 * leave the worker. Every request carries a `requestId` (models/workers/worker-client.ts) that its reply echoes.
 */
import { z } from 'zod';

const Id = z.string().min(1).max(64);

const BoxSchema = z.object({ x0: z.number(), y0: z.number(), x1: z.number(), y1: z.number() });
export const DetectionSchema = z.object({ label: z.string().min(1).max(64), score: z.number().min(0).max(1), box: BoxSchema });

export const VisionWorkerRequestSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('load'),
    requestId: Id,
    /** Hub or mirror base URL with a trailing slash ('https://huggingface.co/' by default). */
    remoteHost: z.string().url().optional(),
    /** Folder (URL) holding the ORT wasm files copied into the extension. */
    wasmPaths: z.string().optional(),
    /** Force the CPU/WASM backend (e.g. after a WebGPU device loss elsewhere). */
    forceWasm: z.boolean().optional(),
    repo: z.string().optional(),
    revision: z.string().optional(),
  }),
  z
    .object({
      type: z.literal('detect'),
      requestId: Id,
      width: z.number().int().positive().max(4096),
      height: z.number().int().positive().max(4096),
      data: z.instanceof(Uint8ClampedArray),
      /** When the frame was grabbed (offscreen clock); echoed back so the caller can match results to frames. */
      capturedAt: z.number(),
    })
    .refine((m) => m.data.length === m.width * m.height * 4, 'data must be width × height × 4 bytes (RGBA)'),
  z.object({ type: z.literal('dispose'), requestId: Id }),
]);
export type VisionWorkerRequest = z.infer<typeof VisionWorkerRequestSchema>;

export const VisionWorkerReplySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('loaded'), requestId: Id, device: z.enum(['webgpu', 'wasm', 'cpu']), ms: z.number() }),
  z.object({ type: z.literal('progress'), requestId: Id, file: z.string(), loaded: z.number(), total: z.number() }),
  z.object({
    type: z.literal('detections'),
    requestId: Id,
    capturedAt: z.number(),
    ms: z.number(),
    detections: z.array(DetectionSchema),
  }),
  z.object({ type: z.literal('disposed'), requestId: Id }),
  z.object({
    type: z.literal('error'),
    requestId: Id,
    /** not-loaded: detect before load; load-failed: download/session error; detect-failed: inference error; bad-request. */
    code: z.enum(['not-loaded', 'load-failed', 'detect-failed', 'bad-request']),
    message: z.string(),
  }),
]);
export type VisionWorkerReply = z.infer<typeof VisionWorkerReplySchema>;
