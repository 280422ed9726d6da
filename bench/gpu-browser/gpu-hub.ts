/**
 * The hub the in-browser GPU bench downloads from (docs/benchmarks.md, "Chromium on the GPU machine"): the fixture hub
 * of the e2e tests (tests/fixtures/hub/layout.ts: the pinned repos, commits, paths, LFS redirects), with the models a
 * turn runs through replaced by real-size graphs of seeded random weights from the project's graph builders:
 *   - the LLM (bench/product/llm-hub.ts: LFM2.5-1.2B shape, the pinned dtype),
 *   - Moonshine base (bench/product/asr-hub.ts),
 *   - Smart Turn v3.2 (bench/stages/smart-turn-graph.ts) with a head bias that makes it answer "complete" for speech,
 *     as the real model does for a finished question (random weights would make the endpoint a coin toss; its compute
 *     is the full model's either way),
 *   - Pocket TTS flow LM, flow head and a Mimi-shaped decoder (bench/stages/pocket-graphs.ts) in both the int8 (WASM)
 *     and the fp32 (GPU pack) roles, with bundle.json's decoder state manifest written from that decoder.
 * Everything else (tokenizers, voices, the conditioner, vision, embeddings) stays the fixture's.
 *
 * The builders are seeded, so the bytes are the same on every machine: the extension is built here with the
 * manifest this writes (`--manifest-only`), and the GPU machine writes the same files again and checks that the
 * manifest it gets is the one the extension pins.
 *   npx jiti bench/gpu-browser/gpu-hub.ts <root> [--manifest-out file]
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseWeightsManifest, type WeightsManifest } from '../../core/weights/manifest';
import { LLM_MODEL, TTS_BUNDLE, TTS_GPU_BUNDLE, TURN_BUNDLE, WEIGHTS_MANIFEST } from '../../models/registry';
import { repoKey, writeFixtureHub, type FixtureLayout } from '../../tests/fixtures/hub/layout';
import { writeLlmRepo } from '../product/llm-hub';
import { writeMoonshineHub } from '../product/asr-hub';
import { LFM2_1_2B, type LlmDtype } from '../stages/llm-graph';
import { MOONSHINE_BASE } from '../stages/moonshine-graphs';
import { SMART_TURN_FULL, buildSmartTurnGraph } from '../stages/smart-turn-graph';
import { TURN_HEAD_BIAS, wordlikeTokenizer } from './wordlike-tokenizer';
import { buildFlowLmFlow, buildFlowLmMain, buildMimiDecoder, mimiManifestOf, POCKET_FULL } from '../stages/pocket-graphs';

async function put(file: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, bytes);
}

const LLM_GRAPH = 'genai-builder' as const;

export interface GpuHub extends FixtureLayout {
  /** What was replaced, with sizes, for the results file. */
  models: Record<string, string>;
}

export async function writeGpuHub(root: string, release: WeightsManifest = WEIGHTS_MANIFEST): Promise<GpuHub> {
  const layout = await writeFixtureHub(root, {}, release);
  const pathOf = (bundleId: string, role: string) => {
    const b = release.bundles.find((x) => x.id === bundleId)!;
    const f = b.files.find((x) => x.role === role);
    if (!f) throw new Error(`${bundleId} has no role ${role}`);
    return join(root, repoKey(release.repos[f.repo]!), f.path);
  };
  const models: Record<string, string> = {};

  // The onnxruntime-genai builder's node structure (docs/llm-static-kv.md), as a user's pinned graph has one of the two
  // published exporters' structures: logits over every position, no num_logits_to_keep (models/llm/last-logits.ts).
  const llm = await writeLlmRepo(root, LFM2_1_2B, LLM_MODEL.dtype as LlmDtype, LLM_GRAPH);
  await wordlikeTokenizer(join(root, LLM_MODEL.repo, 'tokenizer.json'));
  models.llm = `LFM2.5-1.2B shape, ${LLM_GRAPH} structure, ${LLM_MODEL.dtype}, ${((llm.onnxBytes + llm.dataBytes) / 1e6).toFixed(0)} MB`;
  const asr = await writeMoonshineHub(root, MOONSHINE_BASE);
  models.asr = `Moonshine base shape, ${((asr.encoderBytes + asr.decoderBytes) / 1e6).toFixed(0)} MB`;

  const turn = buildSmartTurnGraph({ ...SMART_TURN_FULL, headBias: TURN_HEAD_BIAS });
  await put(pathOf(TURN_BUNDLE.id, 'model'), turn.onnx);
  models.turn = `Smart Turn v3.2 shape (head bias ${TURN_HEAD_BIAS}), ${(turn.onnx.length / 1e6).toFixed(0)} MB`;

  let ttsBytes = 0;
  let mimiStates: ReturnType<typeof mimiManifestOf> = [];
  for (const [dtype, bundleId] of [
    ['int8', TTS_BUNDLE.id],
    ['fp32', TTS_GPU_BUNDLE.id],
  ] as const) {
    const mimi = buildMimiDecoder(POCKET_FULL, dtype);
    mimiStates = mimiManifestOf(mimi);
    for (const [role, graph] of [
      [`flow_lm_main.${dtype}`, buildFlowLmMain(POCKET_FULL, dtype)],
      [`flow_lm_flow.${dtype}`, buildFlowLmFlow(POCKET_FULL, dtype)],
      [`mimi_decoder.${dtype}`, mimi],
    ] as const) {
      await put(pathOf(bundleId, role), graph.onnx);
      ttsBytes += graph.onnx.length;
    }
  }
  const bundleFile = pathOf(TTS_BUNDLE.id, 'bundle_json');
  const bundle = JSON.parse(await readFile(bundleFile, 'utf8')) as Record<string, unknown>;
  bundle.mimi_state_manifest = mimiStates;
  await put(bundleFile, new TextEncoder().encode(JSON.stringify(bundle)));
  models.tts = `Pocket TTS flow LM + flow head + Mimi-shaped decoder, int8 and fp32, ${(ttsBytes / 1e6).toFixed(0)} MB`;

  // Every pinned file's size and sha256 as written, so the manifest pins these bytes.
  const bundles = [];
  for (const b of layout.manifest.bundles) {
    const files = [];
    for (const f of b.files) {
      const bytes = await readFile(join(root, repoKey(release.repos[f.repo]!), f.path));
      files.push({ ...f, size: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') });
    }
    bundles.push({ ...b, files });
  }
  const manifest = parseWeightsManifest({ ...layout.manifest, bundles });
  return { ...layout, manifest, models };
}

/** sha256 of the manifest's JSON: what the GPU machine compares with the extension's build. */
export function manifestHash(manifest: WeightsManifest): string {
  return createHash('sha256').update(JSON.stringify(manifest)).digest('hex');
}

if (process.argv[1]?.endsWith('gpu-hub.ts')) {
  const root = process.argv[2];
  if (!root) throw new Error('usage: gpu-hub.ts <root> [--manifest-out file]');
  const i = process.argv.indexOf('--manifest-out');
  const t0 = performance.now();
  const hub = await writeGpuHub(root);
  if (i > 0) await writeFile(process.argv[i + 1]!, JSON.stringify(hub.manifest, null, 2));
  console.log(JSON.stringify({ ms: Math.round(performance.now() - t0), hash: manifestHash(hub.manifest), models: hub.models }));
}
