/**
 * The default set fits the device (issue 48 item 3, issue 51 item 6): where a hardware GPU runs the models, the first
 * download holds the GPU voice and page search by meaning; elsewhere the CPU set. The welcome's total is every byte
 * the download of its plan fetches, counted at the server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { downloadPlan, planProgress } from '../../../core/ux/onboarding';
import { defaultSet, defaultSetBytes, gpuRunsModels, hardwareGpu, type DeviceFacts } from '../../../core/weights/default-set';
import { parseWeightsManifest } from '../../../core/weights/manifest';
import { MemoryByteStore, WeightsService, type ModelBundle, type WeightsSnapshot } from '../../../core/weights';
import {
  ASR_BUNDLES,
  EMBED_BUNDLE,
  LLM_BUNDLE,
  MODEL_BUNDLES,
  TTS_BUNDLE,
  TTS_GPU_BUNDLE,
  TURN_BUNDLE,
} from '../../../models/registry';
import manifestJson from '../../../models/manifest.json';
import { startHubServer, type HubServer } from '../../fixtures/hub/server';

const adapter = (over: Partial<DeviceFacts['gpu'] & object> = {}) => ({
  available: true,
  isFallbackAdapter: false,
  architecture: 'hopper',
  ...over,
});
const HARDWARE: DeviceFacts = { gpu: adapter(), computeBackend: 'auto' };
const CPU_SETS: [string, DeviceFacts][] = [
  ['no WebGPU at all', { gpu: null, computeBackend: 'auto' }],
  ['WebGPU without an adapter', { gpu: adapter({ available: false }), computeBackend: 'auto' }],
  ['a fallback adapter', { gpu: adapter({ isFallbackAdapter: true }), computeBackend: 'auto' }],
  ['SwiftShader not flagged as fallback', { gpu: adapter({ architecture: 'swiftshader' }), computeBackend: 'auto' }],
  ['a hardware GPU the user turned off ("CPU only")', { gpu: adapter(), computeBackend: 'wasm' }],
];
/** Sum of the pinned sizes of every file of these bundles (what the downloader fetches: optional files included). */
const bytesOf = (bundles: ModelBundle[]) => bundles.reduce((s, b) => s + b.files.reduce((t, f) => t + f.size, 0), 0);
const CPU_BUNDLES = [LLM_BUNDLE, ASR_BUNDLES.moonshine, TURN_BUNDLE, TTS_BUNDLE];

describe('the default set of the pinned manifest', () => {
  it('on a hardware GPU: the CPU set plus the GPU voice and page search by meaning, and their exact bytes', () => {
    expect(hardwareGpu(HARDWARE.gpu)).toBe(true);
    expect(gpuRunsModels(HARDWARE)).toBe(true);
    const ids = defaultSet(MODEL_BUNDLES, HARDWARE).map((b) => b.id);
    expect(ids).toEqual([...CPU_BUNDLES, TTS_GPU_BUNDLE, EMBED_BUNDLE].map((b) => b.id));
    expect(defaultSetBytes(MODEL_BUNDLES, HARDWARE)).toBe(bytesOf([...CPU_BUNDLES, TTS_GPU_BUNDLE, EMBED_BUNDLE]));
    // The figure docs/models.md states (§ First download).
    expect(defaultSetBytes(MODEL_BUNDLES, HARDWARE)).toBe(1_802_929_735);
  });

  it.each(CPU_SETS)('with %s: the CPU set (int8 voice), as before', (_, device) => {
    expect(gpuRunsModels(device)).toBe(false);
    expect(defaultSet(MODEL_BUNDLES, device).map((b) => b.id)).toEqual(CPU_BUNDLES.map((b) => b.id));
    expect(defaultSetBytes(MODEL_BUNDLES, device)).toBe(bytesOf(CPU_BUNDLES));
    expect(defaultSetBytes(MODEL_BUNDLES, device)).toBe(1_328_518_282);
  });

  it('the GPU set keeps the int8 voice: its bundle holds the files both voices read, and it is the fallback', () => {
    const gpu = defaultSet(MODEL_BUNDLES, HARDWARE);
    expect(gpu).toContain(TTS_BUNDLE);
    for (const role of ['bundle_json', 'tokenizer', 'text_conditioner.fp32', 'voice.alba', 'flow_lm_main.int8']) {
      expect(TTS_BUNDLE.files.map((f) => f.role)).toContain(role);
    }
    // Whisper and the object detector stay optional everywhere.
    for (const b of [ASR_BUNDLES.whisper, ...MODEL_BUNDLES.filter((x) => x.task === 'vision')]) expect(gpu).not.toContain(b);
  });

  it('the manifest refuses a bundle that is a default everywhere and a GPU default, or a GPU default without WebGPU', () => {
    const json = structuredClone(manifestJson) as { bundles: Record<string, unknown>[] };
    const gpuBundle = json.bundles.find((b) => b.id === TTS_GPU_BUNDLE.id)!;
    gpuBundle.default = true;
    expect(() => parseWeightsManifest(json)).toThrow(/default everywhere and on GPUs only/);
    gpuBundle.default = false;
    json.bundles.find((b) => b.id === ASR_BUNDLES.whisper.id)!.gpuDefault = true;
    (json.bundles.find((b) => b.id === ASR_BUNDLES.whisper.id)!.backends as string[]).splice(0, 1, 'wasm');
    expect(() => parseWeightsManifest(json)).toThrow(/GPU default without WebGPU/);
  });
});

// ---- the welcome's total against what the download really fetches ----------------------------------------------------

const bytes = (n: number, seed: number) => new Uint8Array(n).map((_, i) => (i * seed + 5) % 251);
const SIZES = { cpu: 40_000, gpu: 70_000, embed: 25_000, other: 90_000 } as const;
type Name = keyof typeof SIZES;
const config = (n: Name) => `{"m":"${n}"}`;
const served = Object.fromEntries(
  (Object.keys(SIZES) as Name[]).flatMap((n, i) => [
    [`org/${n}/config.json`, config(n)],
    [`org/${n}/model.onnx`, bytes(SIZES[n], i + 3)],
    [`org/${n}/extra.json`, 'x'],
  ]),
);
function tinyBundle(name: Name, flags: { default: boolean; gpuDefault?: boolean }): ModelBundle {
  const repo = { type: 'model' as const, id: `org/${name}`, revision: 'main' };
  return {
    id: `bundle-${name}`,
    dtype: 'fp32',
    task: 'tts',
    backends: ['webgpu', 'wasm'],
    label: name,
    license: 'MIT',
    ...flags,
    files: [
      { role: 'config', repo, path: 'config.json', size: config(name).length },
      { role: 'model', repo, path: 'model.onnx', size: SIZES[name] },
      // Optional files are fetched whenever the server has them, so the plan counts them (as the voice encoder).
      { role: 'extra', repo, path: 'extra.json', size: 1, optional: true },
    ],
  };
}
const catalog = [
  tinyBundle('cpu', { default: true }),
  tinyBundle('gpu', { default: false, gpuDefault: true }),
  tinyBundle('embed', { default: false, gpuDefault: true }),
  tinyBundle('other', { default: false }),
];

let server: HubServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function downloadThePlan(device: DeviceFacts) {
  server = await startHubServer({ files: served });
  const snapshots: WeightsSnapshot[] = [];
  const svc = new WeightsService({
    fetch: (input, init) => fetch(input, init),
    store: new MemoryByteStore(),
    now: () => performance.now(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    catalog,
    onProgress: () => undefined,
    onSnapshot: (s) => snapshots.push(s),
  });
  const plan = downloadPlan(catalog, device);
  // What the welcome's button asks for: the plan's missing bundles on a fresh profile.
  const before = planProgress(plan, await svc.snapshot(server.url), null);
  svc.download(before.missingIds, server.url);
  await svc.idle();
  const fetched = server.log.filter((e) => e.method === 'GET' && e.path.includes('/resolve/') && e.status < 300);
  return { plan, fetched, after: planProgress(plan, snapshots.at(-1)!, null) };
}

describe('the welcome’s total is what the download fetches', () => {
  it('on a hardware GPU: the CPU set, the GPU voice and the embedding model, byte for byte', async () => {
    const { plan, fetched, after } = await downloadThePlan(HARDWARE);
    expect(plan.items.map((i) => i.id)).toEqual(['bundle-cpu', 'bundle-gpu', 'bundle-embed']);
    expect(fetched.reduce((s, e) => s + e.bytes, 0)).toBe(plan.totalBytes);
    const configs = config('cpu').length + config('gpu').length + config('embed').length;
    expect(plan.totalBytes).toBe(SIZES.cpu + SIZES.gpu + SIZES.embed + configs + 3);
    expect(fetched.some((e) => e.path.startsWith('/org/other/'))).toBe(false);
    expect(after).toMatchObject({ status: 'complete', bytes: plan.totalBytes, missingIds: [] });
  });

  it.each(CPU_SETS)('with %s: the CPU set alone, byte for byte', async (_, device) => {
    const { plan, fetched, after } = await downloadThePlan(device);
    expect(plan.items.map((i) => i.id)).toEqual(['bundle-cpu']);
    expect(fetched.reduce((s, e) => s + e.bytes, 0)).toBe(plan.totalBytes);
    expect(fetched.every((e) => e.path.startsWith('/org/cpu/'))).toBe(true);
    expect(after).toMatchObject({ status: 'complete', bytes: plan.totalBytes });
  });
});
