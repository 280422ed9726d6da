import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { WeightsError } from '../../../core/weights/errors';
import {
  DEFAULT_HUB_URL,
  buildFileUrl,
  bundleTotalBytes,
  configuredMirror,
  treeApiUrl,
  validateMirrorUrl,
} from '../../../core/weights/registry';
import { StreamingSha256, sha256OfChunks } from '../../../core/weights/sha256';
import { MemoryByteStore } from '../../../core/weights/byte-store';
import { buildSnapshot, parseSnapshot } from '../../../core/weights/state';
import { fileBytes, tinyBundle, tinyFile } from './helpers';

describe('registry', () => {
  it('builds hub and mirror URLs in the resolve layout, for model repos and Spaces, at the pinned commit', () => {
    const commit = '10f72e70abf67ac0fd7ebf15bc5854726891d864';
    const repo = { type: 'model' as const, id: 'onnx-community/LFM2-350M-ONNX', revision: commit };
    expect(buildFileUrl({ repo, path: 'onnx/model_q4.onnx' })).toBe(
      `https://huggingface.co/onnx-community/LFM2-350M-ONNX/resolve/${commit}/onnx/model_q4.onnx`,
    );
    expect(buildFileUrl({ repo, path: 'config.json' }, 'https://mirror.example.org/hf/')).toBe(
      `https://mirror.example.org/hf/onnx-community/LFM2-350M-ONNX/resolve/${commit}/config.json`,
    );
    expect(buildFileUrl({ repo, path: 'a b.json' }, 'http://127.0.0.1:8080')).toBe(
      `http://127.0.0.1:8080/onnx-community/LFM2-350M-ONNX/resolve/${commit}/a%20b.json`,
    );
    const space = { type: 'space' as const, id: 'KevinAHM/pocket-tts-web', revision: 'd0c0c79b7712256a32d691c67f20b8ae2e020d00' };
    expect(buildFileUrl({ repo: space, path: 'onnx/english_2026-04/voices.bin' })).toBe(
      'https://huggingface.co/spaces/KevinAHM/pocket-tts-web/resolve/d0c0c79b7712256a32d691c67f20b8ae2e020d00/onnx/english_2026-04/voices.bin',
    );
    expect(treeApiUrl(space, 'onnx/english_2026-04')).toBe(
      'https://huggingface.co/api/spaces/KevinAHM/pocket-tts-web/tree/d0c0c79b7712256a32d691c67f20b8ae2e020d00/onnx/english_2026-04',
    );
    expect(treeApiUrl(repo, '', 'http://127.0.0.1:9/')).toBe(
      `http://127.0.0.1:9/api/models/onnx-community/LFM2-350M-ONNX/tree/${commit}`,
    );
    expect(DEFAULT_HUB_URL).toBe('https://huggingface.co');
  });

  it('computes the mirror in one place: empty means the hub, anything else is validated', () => {
    expect(configuredMirror('')).toBeNull();
    expect(configuredMirror('   ')).toBeNull();
    expect(configuredMirror(undefined)).toBeNull();
    expect(configuredMirror(' https://hf-mirror.com/ ')).toBe('https://hf-mirror.com');
    expect(() => configuredMirror('http://example.com')).toThrow(WeightsError);
  });

  it('accepts https mirrors and http only on localhost; refuses credentials and junk', () => {
    expect(validateMirrorUrl(' https://hf-mirror.com/ ')).toBe('https://hf-mirror.com');
    expect(validateMirrorUrl('http://localhost:3000/x/')).toBe('http://localhost:3000/x');
    expect(validateMirrorUrl('http://127.0.0.1:9')).toBe('http://127.0.0.1:9');
    for (const bad of [
      'http://example.com',
      'ftp://localhost',
      'https://u:p@example.com',
      'https://x.org/?t=1',
      'not a url',
      'javascript:alert(1)',
    ]) {
      expect(() => validateMirrorUrl(bad), bad).toThrow(WeightsError);
    }
    let err: unknown;
    try {
      validateMirrorUrl('https://user:secret@example.com');
    } catch (e) {
      err = e;
    }
    expect((err as WeightsError).code).toBe('bad_mirror');
    expect((err as WeightsError).message).not.toContain('secret');
  });

  it('sums bundle sizes with and without optional files', () => {
    const b = tinyBundle();
    const required = b.files.filter((f) => !f.optional).reduce((s, f) => s + f.size, 0);
    expect(bundleTotalBytes(b, false)).toBe(required);
    expect(bundleTotalBytes(b)).toBe(required + 20);
  });
});

describe('sha256', () => {
  it('streaming hash equals node:crypto for block-boundary lengths and any chunking', () => {
    for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 70_001]) {
      const data = fileBytes(n, n + 3);
      const want = createHash('sha256').update(data).digest('hex');
      expect(new StreamingSha256().update(data).digestHex(), `len ${n}`).toBe(want);
      const h = new StreamingSha256();
      for (let i = 0; i < n; i += 1 + (i % 97)) h.update(data.subarray(i, Math.min(n, i + 1 + (i % 97))));
      expect(h.digestHex(), `chunked len ${n}`).toBe(want);
    }
  });

  it('WebCrypto and streaming paths agree', async () => {
    const data = fileBytes(200_000, 9);
    const chunks = async function* () {
      for (let i = 0; i < data.length; i += 30_000) yield data.subarray(i, i + 30_000);
    };
    const want = createHash('sha256').update(data).digest('hex');
    const subtle = globalThis.crypto.subtle;
    expect(await sha256OfChunks(chunks(), data.length, { subtle, webCryptoMaxBytes: 1 << 20 })).toBe(want);
    expect(await sha256OfChunks(chunks(), data.length, { subtle, webCryptoMaxBytes: 1000 })).toBe(want);
    expect(await sha256OfChunks(chunks(), data.length, { webCryptoMaxBytes: 1 << 20 })).toBe(want);
  });
});

describe('snapshot', () => {
  it('round-trips through JSON and rejects foreign shapes', async () => {
    const store = new MemoryByteStore();
    const b = tinyBundle();
    await store.putPart(buildFileUrl(tinyFile('onnx/model.onnx')), 0, fileBytes(1000));
    const snap = await buildSnapshot([b], store, DEFAULT_HUB_URL, 123, {
      active: { bundleId: 'tiny', path: 'onnx/model.onnx' },
      lastError: null,
    });
    expect(snap.bundles[0]).toMatchObject({ status: 'partial', bytesStored: 1000 });
    const parsed = parseSnapshot(JSON.parse(JSON.stringify(snap)));
    expect(parsed).toEqual(snap);
    expect(parseSnapshot({ version: 2 })).toBeUndefined();
    expect(parseSnapshot(undefined)).toBeUndefined();
  });
});
