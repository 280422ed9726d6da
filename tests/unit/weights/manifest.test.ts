/**
 * The pinned manifest is the only source of hub facts: these tests fail when it breaks its own rules, when the
 * registry and the manifest disagree, when a runtime needs a file the manifest does not list, or when the fixture hub
 * stops mirroring the real layout.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import manifestJson from '../../../models/manifest.json';
import { ManifestError, parseWeightsManifest } from '../../../core/weights/manifest';
import { bundleTotalBytes, buildFileUrl, defaultDownloadBytes } from '../../../core/weights/registry';
import {
  ASR_BUNDLES,
  ASR_MODELS,
  LLM_BUNDLE,
  LLM_MODEL,
  MODEL_BUNDLES,
  TTS_BUNDLE,
  TURN_BUNDLE,
  TTS_GPU_BUNDLE,
  WEIGHTS_MANIFEST,
  dtypeSuffix,
  ttsWorkerFiles,
} from '../../../models/registry';
import { VISION_BUNDLE, VISION_MODEL } from '../../../models/vision/detector-spec';
import { REQUIRED_GRAPHS, WEBGPU_GRAPHS } from '../../../models/tts/pocket/model';
import { repoKey, writeFixtureHub } from '../../fixtures/hub/layout';

const clone = () => JSON.parse(JSON.stringify(manifestJson)) as typeof manifestJson;

describe('models/manifest.json', () => {
  it('pins every repo to a full commit, every file to an exact size, every LFS file to a sha256', () => {
    expect(WEIGHTS_MANIFEST.kind).toBe('release');
    for (const r of Object.values(WEIGHTS_MANIFEST.repos)) expect(r.commit).toMatch(/^[0-9a-f]{40}$/);
    for (const b of MODEL_BUNDLES) {
      for (const f of b.files) {
        expect(Number.isInteger(f.size) && f.size > 0, `${b.id}/${f.role}`).toBe(true);
        expect(buildFileUrl(f)).not.toMatch(/\/resolve\/main\//);
      }
    }
    for (const b of WEIGHTS_MANIFEST.bundles)
      for (const f of b.files) if (f.lfs) expect(f.sha256, `${b.id}/${f.role}`).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a branch for a commit, an LFS file without a hash, a duplicate role, an unknown repo and a path that escapes', () => {
    const branch = clone();
    branch.repos['lfm2.5-1.2b'].commit = 'main';
    expect(() => parseWeightsManifest(branch)).toThrow(ManifestError);
    const noHash = clone();
    delete (noHash.bundles[0]!.files.find((f) => f.lfs) as { sha256?: string }).sha256;
    expect(() => parseWeightsManifest(noHash)).toThrow(/LFS file needs its pinned sha256/);
    const dup = clone();
    dup.bundles[0]!.files[1]!.role = dup.bundles[0]!.files[0]!.role;
    expect(() => parseWeightsManifest(dup)).toThrow(/listed twice/);
    const unknown = clone();
    unknown.bundles[0]!.files[0]!.repo = 'nope';
    expect(() => parseWeightsManifest(unknown)).toThrow(/unknown repo key/);
    const escape = clone();
    escape.bundles[0]!.files[0]!.path = '../secrets.json';
    expect(() => parseWeightsManifest(escape)).toThrow(ManifestError);
  });

  it('gives the registry and the runtimes their repo, commit and dtype (nothing else names a hub fact)', () => {
    expect(MODEL_BUNDLES.map((b) => b.id)).toEqual(WEIGHTS_MANIFEST.bundles.map((b) => b.id));
    const commitOf = (key: string) => WEIGHTS_MANIFEST.repos[key]!.commit;
    expect(LLM_MODEL).toMatchObject({
      repo: 'LiquidAI/LFM2.5-1.2B-Instruct-ONNX',
      revision: commitOf('lfm2.5-1.2b'),
      dtype: 'q4',
    });
    expect(ASR_MODELS.moonshine).toMatchObject({
      repo: 'onnx-community/moonshine-base-ONNX',
      revision: commitOf('moonshine-base'),
    });
    expect(ASR_MODELS.whisper).toMatchObject({ repo: 'onnx-community/whisper-base', revision: commitOf('whisper-base') });
    expect(VISION_MODEL).toMatchObject({ repo: 'onnx-community/dfine_m_coco-ONNX', revision: commitOf('dfine-m-coco') });
  });

  it('lists every file transformers.js derives from the dtypes (graphs, external data, configs, tokenizer)', () => {
    const paths = (b: typeof LLM_BUNDLE) => b.files.map((f) => f.path);
    const llm = `onnx/model${dtypeSuffix(LLM_MODEL.dtype)}.onnx`;
    expect(paths(LLM_BUNDLE)).toEqual(
      expect.arrayContaining([
        'config.json',
        'tokenizer.json',
        'tokenizer_config.json',
        'chat_template.jinja',
        llm,
        `${llm}_data`,
      ]),
    );
    for (const family of ['moonshine', 'whisper'] as const) {
      const spec = ASR_MODELS[family];
      expect(paths(ASR_BUNDLES[family])).toEqual(
        expect.arrayContaining([
          'config.json',
          'preprocessor_config.json',
          'tokenizer.json',
          'tokenizer_config.json',
          'generation_config.json',
          `onnx/encoder_model${dtypeSuffix(spec.dtype.encoder_model!)}.onnx`,
          `onnx/decoder_model_merged${dtypeSuffix(spec.dtype.decoder_model_merged!)}.onnx`,
        ]),
      );
    }
    expect(paths(VISION_BUNDLE)).toEqual([`onnx/model${dtypeSuffix(VISION_MODEL.dtype)}.onnx`]);
  });

  it('gives the Pocket TTS worker every role it opens, from one language folder, and voices with their licences', () => {
    const roles = Object.keys(ttsWorkerFiles((f) => buildFileUrl(f), true));
    for (const r of ['bundle_json', 'tokenizer', 'bos_before_voice']) expect(roles).toContain(r);
    for (const g of REQUIRED_GRAPHS)
      expect(
        roles.some((r) => r === `${g}.int8` || r === `${g}.fp32`),
        g,
      ).toBe(true);
    for (const g of WEBGPU_GRAPHS) expect(TTS_GPU_BUNDLE.files.map((f) => f.role)).toContain(`${g}.fp32`);
    const graphFolders = new Set(
      [...TTS_BUNDLE.files, ...TTS_GPU_BUNDLE.files]
        .filter((f) => !f.role.startsWith('voice.'))
        .map((f) => f.path.slice(0, f.path.lastIndexOf('/'))),
    );
    expect([...graphFolders]).toEqual(['onnx/english_2026-04']);
    const voices = TTS_BUNDLE.files.filter((f) => f.role.startsWith('voice.'));
    expect(voices.map((v) => v.role)).toEqual(expect.arrayContaining(['voice.alba', 'voice.marius']));
    for (const v of voices) {
      expect(v.license).toMatch(/^CC/);
      expect(v.attribution).toMatch(/Kyutai/);
      expect(v.path).toMatch(/^languages\/english_2026-04\/embeddings\//);
    }
  });

  it('states the first download honestly: the default bundles and the total of every file they fetch', () => {
    const defaults = MODEL_BUNDLES.filter((b) => b.default).map((b) => b.id);
    expect(defaults).toEqual([LLM_BUNDLE.id, ASR_BUNDLES.moonshine.id, TURN_BUNDLE.id, TTS_BUNDLE.id]);
    const total = defaultDownloadBytes(MODEL_BUNDLES);
    expect(total).toBe([LLM_BUNDLE, ASR_BUNDLES.moonshine, TURN_BUNDLE, TTS_BUNDLE].reduce((s, b) => s + bundleTotalBytes(b), 0));
    expect(total).toBe(1_328_518_282); // docs/models.md and the README state this figure
    expect(total).toBeGreaterThan(1_000_000_000);
  });
});

describe('the fixture hub mirrors the real layout', () => {
  it('same repos, commits, paths and roles as the release manifest; sizes and hashes of the bytes it serves', async () => {
    const root = await mkdtemp(join(tmpdir(), 'sidetalk-layout-'));
    try {
      const layout = await writeFixtureHub(root);
      expect(layout.manifest.kind).toBe('fixture');
      expect(layout.manifest.repos).toEqual(WEIGHTS_MANIFEST.repos);
      const where = (m: typeof WEIGHTS_MANIFEST) =>
        m.bundles.map((b) => b.files.map((f) => [b.id, f.role, f.repo, f.path, f.lfs, f.optional ?? false]));
      expect(where(layout.manifest)).toEqual(where(WEIGHTS_MANIFEST));
      for (const b of layout.manifest.bundles) {
        for (const f of b.files) {
          const bytes = await readFile(join(root, repoKey(layout.manifest.repos[f.repo]!), f.path));
          expect(bytes.byteLength).toBe(f.size);
          expect(createHash('sha256').update(bytes).digest('hex')).toBe(f.sha256);
        }
      }
      expect(layout.hubOptions.revisions).toEqual(
        Object.fromEntries(Object.values(WEIGHTS_MANIFEST.repos).map((r) => [r.id, r.commit])),
      );
      // Same-named files of another language sit next to ours, as on the real hub.
      await expect(readFile(join(root, 'KevinAHM/pocket-tts-onnx/onnx/french_24l/bundle.json'), 'utf8')).resolves.toMatch(
        /decoy/,
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
