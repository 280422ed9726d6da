import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXTENSION_DIR } from './harness';

const manifest = JSON.parse(readFileSync(join(EXTENSION_DIR, 'manifest.json'), 'utf8')) as Record<string, unknown> & {
  permissions: string[];
  host_permissions: string[];
  optional_host_permissions: string[];
  content_security_policy: { extension_pages: string };
  commands: Record<string, unknown>;
  icons: Record<string, string>;
};

describe('production manifest', () => {
  it('asks only for the permissions Sidetalk needs', () => {
    expect([...manifest.permissions].sort()).toEqual([
      'activeTab',
      'offscreen',
      'scripting',
      'sidePanel',
      'storage',
      'unlimitedStorage',
    ]);
  });

  it('limits host permissions to the model hub (the tool APIs are reached through CORS)', () => {
    expect([...manifest.host_permissions].sort()).toEqual([
      'https://*.hf.co/*',
      'https://*.huggingface.co/*',
      'https://huggingface.co/*',
    ]);
  });

  it('optional hosts: https origins, and plain http to this computer only', () => {
    expect([...manifest.optional_host_permissions].sort()).toEqual([
      'http://127.0.0.1/*',
      'http://[::1]/*',
      'http://localhost/*',
      'https://*/*',
    ]);
  });

  it("has an explicit CSP with 'wasm-unsafe-eval' and no remote script sources", () => {
    const csp = manifest.content_security_policy.extension_pages;
    expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval'");
    expect(csp).not.toMatch(/https?:|'unsafe-eval'|blob:/);
  });

  it('is cross-origin isolated so multi-threaded WASM works', () => {
    expect(manifest.cross_origin_embedder_policy).toEqual({ value: 'require-corp' });
    expect(manifest.cross_origin_opener_policy).toEqual({ value: 'same-origin' });
  });

  it('ships icons, a side panel, a popup and the keyboard commands', () => {
    for (const path of Object.values(manifest.icons)) expect(() => readFileSync(join(EXTENSION_DIR, path))).not.toThrow();
    expect(manifest.side_panel).toEqual({ default_path: 'sidepanel.html' });
    expect((manifest.action as { default_popup: string }).default_popup).toBe('popup.html');
    expect(Object.keys(manifest.commands).sort()).toEqual(['_execute_action', 'toggle-listening']);
  });

  it('bundles the runtime files instead of loading them from a CDN', () => {
    for (const file of [
      'ort/ort-wasm-simd-threaded.asyncify.wasm',
      'ort/ort-wasm-simd-threaded.asyncify.mjs',
      'vad/silero_vad_v5.onnx',
      'worklets/mic-framer.js',
      'thesaurus/wordnet-synonyms.tsv.gz',
      'thesaurus/LICENSE-WordNet.txt',
    ]) {
      expect(readFileSync(join(EXTENSION_DIR, file)).length).toBeGreaterThan(1000);
    }
  });
});
