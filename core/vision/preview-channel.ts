/**
 * The camera preview from the offscreen document to the side panel over a BroadcastChannel (runtime messaging is
 * JSON-only; a Blob structured-clones cheaply). Each frame is the exact picture the detector analysed, as a small
 * JPEG, with the boxes of the smoothed scene, so the PiP shows what the assistant actually "sees" — no more often than
 * detection runs (it freezes, honestly, while speech has the GPU). Same device only; nothing is stored.
 */
import { z } from 'zod';

export const VISION_PREVIEW_CHANNEL = 'sidetalk-vision-preview';

const BoxSchema = z.object({
  x0: z.number().min(0).max(1),
  y0: z.number().min(0).max(1),
  x1: z.number().min(0).max(1),
  y1: z.number().min(0).max(1),
});

export const PreviewObjectSchema = z.object({
  label: z.string().min(1).max(64),
  score: z.number().min(0).max(1),
  box: BoxSchema,
});
export type PreviewObject = z.infer<typeof PreviewObjectSchema>;

export const VisionPreviewMessageSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('frame'),
    seq: z.number().int().nonnegative(),
    capturedAt: z.number(),
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    jpeg: z.instanceof(Blob),
    objects: z.array(PreviewObjectSchema).max(100),
  }),
  z.object({
    kind: z.literal('state'),
    /** off: vision turned off (drop the picture); starting; on; paused: speech has the GPU; error: camera problem. */
    state: z.enum(['off', 'starting', 'on', 'paused', 'error']),
    message: z.string().max(300).optional(),
  }),
]);
export type VisionPreviewMessage = z.infer<typeof VisionPreviewMessageSchema>;
