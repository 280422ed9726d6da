/**
 * `bundle.json` schema v2 (pocket-tts.md §3.4): the model constants, text switches and the two state manifests that
 * say, per graph state, its dtype, shape and initial fill. The driver threads states by these manifests only, so a
 * re-export with other shapes needs no code change.
 */
import { z } from 'zod';

/** The dtypes this player runs; the exporter may write any torch dtype name (see `exportedDtypeSchema`). */
export const stateDtypeSchema = z.enum(['float32', 'int64', 'bool']);
export type StateDtype = z.infer<typeof stateDtypeSchema>;
/** What the v2 exporter can write: the torch dtype name without "torch." (docs/tts.md). */
const exportedDtypeSchema = z.enum([
  'float32',
  'float16',
  'bfloat16',
  'float64',
  'int64',
  'int32',
  'int16',
  'int8',
  'uint8',
  'bool',
]);
/** Fills the exporter writes; "mixed" (a tensor no single value describes) cannot be rebuilt from the manifest. */
const exportedFillSchema = z.enum(['nan', 'zeros', 'ones', 'empty', 'mixed']);

const exportedEntrySchema = z.object({
  module: z.string(),
  key: z.string(),
  path: z.string(),
  dtype: exportedDtypeSchema,
  shape: z.array(z.number().int().nonnegative()),
  fill: exportedFillSchema,
  index: z.number().int().nonnegative(),
  input_name: z.string(),
  output_name: z.string(),
});

export const stateEntrySchema = z.object({
  module: z.string(),
  key: z.string(),
  path: z.string(),
  dtype: stateDtypeSchema,
  shape: z.array(z.number().int().nonnegative()),
  fill: z.enum(['nan', 'zeros', 'ones', 'empty']),
  index: z.number().int().nonnegative(),
  input_name: z.string(),
  output_name: z.string(),
});
export type StateEntry = z.infer<typeof stateEntrySchema>;

const bundleFields = {
  schema_version: z.literal(2),
  bundle_name: z.string(),
  language: z.string(),
  sample_rate: z.number().int().positive(),
  frame_rate: z.number().positive(),
  samples_per_frame: z.number().int().positive(),
  latent_dim: z.number().int().positive(),
  conditioning_dim: z.number().int().positive(),
  pad_with_spaces_for_short_inputs: z.boolean(),
  remove_semicolons: z.boolean(),
  model_recommended_frames_after_eos: z.number().int().nonnegative().nullable(),
  max_token_per_chunk: z.number().int().positive(),
  insert_bos_before_voice: z.boolean(),
  tokenizer_file: z.string(),
  bos_before_voice_file: z.string().nullable().optional(),
  predefined_voices: z.array(z.string()),
  flow_lm_state_manifest: z.array(exportedEntrySchema),
  mimi_state_manifest: z.array(exportedEntrySchema),
};
/** Keys the exporter may add later are kept, not rejected (it updates an existing bundle.json in place). */
export const bundleSchema = z.object(bundleFields).loose();
type ExportedBundle = z.infer<ReturnType<typeof z.object<typeof bundleFields>>>;
export type PocketBundle = Omit<ExportedBundle, 'flow_lm_state_manifest' | 'mimi_state_manifest'> & {
  flow_lm_state_manifest: StateEntry[];
  mimi_state_manifest: StateEntry[];
};

export class BundleError extends Error {
  override name = 'BundleError';
}

/** Parses and cross-checks bundle.json: manifests in index order with consistent names and path = module/key. */
export function parseBundleJson(json: unknown): PocketBundle {
  const parsed = bundleSchema.safeParse(json);
  if (!parsed.success) throw new BundleError(`bundle.json is not schema v2: ${parsed.error.message}`);
  const b = parsed.data;
  for (const [name, manifest] of [
    ['flow_lm_state_manifest', b.flow_lm_state_manifest],
    ['mimi_state_manifest', b.mimi_state_manifest],
  ] as const) {
    manifest.forEach((e, i) => {
      if (e.index !== i) throw new BundleError(`${name}[${i}] has index ${e.index}`);
      if (e.input_name !== `state_${i}` || e.output_name !== `out_state_${i}`) {
        throw new BundleError(`${name}[${i}] names ${e.input_name}/${e.output_name}`);
      }
      if (e.path !== `${e.module}/${e.key}`) throw new BundleError(`${name}[${i}] path ${e.path} ≠ module/key`);
      if ((e.fill === 'empty') !== e.shape.some((d) => d === 0)) {
        throw new BundleError(`${name}[${i}] fill "${e.fill}" does not match shape [${e.shape}]`);
      }
    });
  }
  if (b.samples_per_frame * b.frame_rate !== b.sample_rate) {
    throw new BundleError('samples_per_frame × frame_rate ≠ sample_rate');
  }
  // Valid exports this player cannot run say so by name rather than failing inside a graph.
  const runnable = (name: string, manifest: ExportedBundle['flow_lm_state_manifest']): StateEntry[] =>
    manifest.map((e) => {
      const entry = stateEntrySchema.safeParse(e);
      if (!entry.success)
        throw new BundleError(`${name} state ${e.path} (${e.dtype}, fill ${e.fill}) is not supported by this player`);
      return entry.data;
    });
  return {
    ...b,
    flow_lm_state_manifest: runnable('flow_lm', b.flow_lm_state_manifest),
    mimi_state_manifest: runnable('mimi', b.mimi_state_manifest),
  };
}

export function elementCount(shape: readonly number[]): number {
  return shape.reduce((a, d) => a * d, 1);
}
