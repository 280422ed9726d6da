import { z } from 'zod';

/**
 * Requests and events of the tunables (core/tunables). The background owns the values: `tunables/set` and
 * `tunables/reset` change them there (validated by the same registry), it persists the overrides and broadcasts
 * `event/tunables`; the offscreen document, side panel, popup and permissions page apply that event (and pull
 * `tunables/get` when they start); the offscreen document forwards it to its two workers. Spread into REQUESTS /
 * EVENTS in messages.ts; docs/architecture.md ("Tunables").
 */

const Empty = z.object({}).strict();

export const TunablePathSchema = z
  .string()
  .max(100)
  .regex(/^[a-zA-Z]+\.[a-zA-Z0-9]+$/);
export const TunableValueSchema = z.union([z.number(), z.boolean(), z.string().max(200)]);

/** Non-default values by path: what the background persists and every context applies over its defaults. */
export const TunableOverridesSchema = z
  .record(TunablePathSchema, TunableValueSchema)
  .refine((o) => Object.keys(o).length <= 1000, 'too many overrides');

/** The owner's state: `version` grows with every change, so a context never applies an older state over a newer one. */
export const TunablesStateSchema = z
  .object({ version: z.number().int().nonnegative(), overrides: TunableOverridesSchema })
  .strict();
export type TunablesState = z.infer<typeof TunablesStateSchema>;

/** Every section's live values in one context. */
export const TunablesSnapshotSchema = z.record(z.string(), z.record(z.string(), TunableValueSchema));

/** The offscreen document and the two workers it runs, whose live values `debug/tunables-live` reads
 * (core/protocol/test-hooks.ts). */
export const OFFSCREEN_TUNABLE_CONTEXTS = ['offscreen', 'model-worker', 'tts-worker'] as const;

export const TUNABLES_REQUESTS = {
  /** The owner's state, and its own live values (what the background's code reads). */
  'tunables/get': {
    target: 'background',
    payload: Empty,
    result: TunablesStateSchema.extend({ values: TunablesSnapshotSchema }),
  },
  /** Validated by the registry's limits; a refused value comes back as a protocol error saying why. */
  'tunables/set': {
    target: 'background',
    payload: z.object({ path: TunablePathSchema, value: TunableValueSchema }).strict(),
    result: TunablesStateSchema,
  },
  /** Every knob back to its default. */
  'tunables/reset': { target: 'background', payload: Empty, result: TunablesStateSchema },
} as const;

export const TUNABLES_EVENTS = {
  'event/tunables': TunablesStateSchema,
} as const;
