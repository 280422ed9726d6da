/**
 * The Pocket TTS bundle the product-loop benches hand to the product's loader, role → bytes: the heavy graphs
 * real-size (or tiny) with random weights (bench/stages/pocket-graphs.ts: the flow LM, the flow head, a Mimi-shaped
 * decoder with its own states), the rest the test fixture's (bundle.json, tokenizer, conditioner, voices: written by
 * write-pocket-fixture.ts into SIDETALK_POCKET_FIXTURE), with bundle.json's decoder state manifest written from the
 * decoder graph.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildFlowLmFlow,
  buildFlowLmMain,
  buildMimiDecoder,
  mimiManifestOf,
  POCKET_FULL,
  type PocketShape,
} from '../stages/pocket-graphs';

/** `dtypes`: the graph roles to build, 'fp32' (the GPU pack) and/or 'int8' (what WASM runs). */
export function pocketBundleFiles(
  dtypes: readonly ('fp32' | 'int8')[],
  shape: PocketShape = POCKET_FULL,
): { files: Map<string, Uint8Array>; buildMs: number } {
  const t0 = performance.now();
  const dir = process.env.SIDETALK_POCKET_FIXTURE ?? 'bench/out/gpu-kit/pocket-fixture';
  const files = new Map<string, Uint8Array>(
    readdirSync(dir).map((role) => [role, new Uint8Array(readFileSync(join(dir, role)))]),
  );
  const bundle = JSON.parse(new TextDecoder().decode(files.get('bundle_json'))) as Record<string, unknown>;
  for (const dtype of dtypes) {
    const mimi = buildMimiDecoder(shape, dtype);
    bundle.mimi_state_manifest = mimiManifestOf(mimi);
    files.set(`flow_lm_main.${dtype}`, buildFlowLmMain(shape, dtype).onnx);
    files.set(`flow_lm_flow.${dtype}`, buildFlowLmFlow(shape, dtype).onnx);
    files.set(`mimi_decoder.${dtype}`, mimi.onnx);
  }
  files.set('bundle_json', new TextEncoder().encode(JSON.stringify(bundle)));
  return { files, buildMs: performance.now() - t0 };
}
