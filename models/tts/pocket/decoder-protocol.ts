/**
 * Messages between the TTS worker's loop and the Mimi decoder in its own onnxruntime-web instance (a nested worker,
 * docs/tts.md "Overlapped decode"). Both directions are zod-validated: the decoder refuses a bad request with an
 * error event, the loop treats a bad event as a broken decoder. Latents go in numbered (`seq`), PCM comes back with
 * the same `seq`, in order.
 */
import { z } from 'zod';
import { stateEntrySchema } from '../../../core/tts/bundle-manifest';

export const decoderRequestSchema = z.discriminatedUnion('type', [
  /** Opens the decoder graph on this instance's WASM runtime with `numThreads` threads, then answers `ready`. */
  z.object({
    type: z.literal('init'),
    graph: z.union([z.instanceof(ArrayBuffer), z.instanceof(Uint8Array)]),
    manifest: z.array(stateEntrySchema).min(1),
    latentDim: z.number().int().positive(),
    numThreads: z.number().int().min(1).max(16).optional(),
  }),
  /** `frames` latents of `latentDim` each; `fresh` = start from the manifest's fills (a new chunk). */
  z.object({
    type: z.literal('decode'),
    seq: z.number().int().nonnegative(),
    latent: z.instanceof(Float32Array),
    frames: z.number().int().positive(),
    fresh: z.boolean(),
  }),
  /** Forget queued decodes up to `through` (a cancelled turn): they are not run and get no answer. */
  z.object({ type: z.literal('drop'), through: z.number().int().nonnegative() }),
]);
export type DecoderRequest = z.input<typeof decoderRequestSchema>;

export const decoderEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), threads: z.number().int().positive() }),
  /** `startAbs` / `endAbs`: timeOrigin + now() around the run, so a bench can see the two instances overlap. */
  z.object({
    type: z.literal('pcm'),
    seq: z.number().int().nonnegative(),
    pcm: z.instanceof(Float32Array),
    startAbs: z.number(),
    endAbs: z.number(),
  }),
  z.object({ type: z.literal('error'), seq: z.number().int().nonnegative().optional(), message: z.string() }),
]);
export type DecoderEvent = z.infer<typeof decoderEventSchema>;

/** A Worker as both sides see it (a browser Worker fits; Node's worker_threads need a small adapter). */
export interface DecoderPort {
  postMessage(message: DecoderRequest, transfer?: Transferable[]): void;
  onmessage: ((e: { data: unknown }) => void) | null;
  onerror?: ((e: unknown) => void) | null;
  terminate(): void;
}
