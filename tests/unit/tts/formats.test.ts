import { describe, expect, it } from 'vitest';
import { parseBundleJson, BundleError } from '../../../core/tts/bundle-manifest';
import { parseNpyFloat32, writeNpyFloat32 } from '../../../core/tts/npy';
import {
  deserializeVoice,
  InMemoryVoiceStore,
  serializeVoice,
  VoiceFileError,
  type StoredVoice,
} from '../../../core/tts/voice-store';
import { parseVoicesBin, VoicesBinError, writeVoicesBin } from '../../../core/tts/voices-bin';
import { decodeWav, encodeWav, prepareCloneAudio, resample } from '../../../core/tts/wav';
import { buildPocketBundle, presetVoice } from '../../fixtures/pocket/generate';

const files = buildPocketBundle();

describe('voices.bin (PTVB1)', () => {
  it('lists the presets with their KV-cache prefixes and offsets', () => {
    const voices = parseVoicesBin(files.get('voices')!);
    expect(voices.map((v) => v.name)).toEqual(['alba', 'marius']);
    const cache = voices[0]!.tensors.get('transformer.layers.0.self_attn/cache')!;
    expect(cache.dims).toEqual([2, 1, 126, 16, 64]);
    expect((cache.data as Float32Array)[1024]).toBeCloseTo(0.5); // K, slot 1, element 0 = alba's amplitude
    expect(voices[1]!.tensors.get('transformer.layers.5.self_attn/offset')!.data).toEqual(BigInt64Array.of(126n));
    expect(voices[0]!.tensors.size).toBe(12);
  });
  it('refuses bad magic, truncation, inconsistent byte counts and trailing bytes', () => {
    const good = files.get('voices')!;
    expect(() => parseVoicesBin(new TextEncoder().encode('PTVB2xxxx'))).toThrow(VoicesBinError);
    expect(() => parseVoicesBin(good.subarray(0, good.length - 3))).toThrow(/truncated/);
    const extra = new Uint8Array(good.length + 1);
    extra.set(good);
    expect(() => parseVoicesBin(extra)).toThrow(/trailing/);
    const lie = writeVoicesBin([
      { name: 'x', tensors: new Map([['a/b', { dtype: 'float32' as const, dims: [3], data: new Float32Array(3) }]]) },
    ]);
    new DataView(lie.buffer).setUint32(lie.length - 12 - 4, 8, true); // byte count 8 ≠ 3 × 4
    expect(() => parseVoicesBin(lie)).toThrow(/bytes, dims say/);
  });
});

describe('bundle.json v2', () => {
  const json = JSON.parse(new TextDecoder().decode(files.get('bundle_json')!));
  it('parses the fixture with 18 flow and 56 mimi states', () => {
    const b = parseBundleJson(json);
    expect(b.flow_lm_state_manifest).toHaveLength(18);
    expect(b.mimi_state_manifest).toHaveLength(56);
    expect(b.flow_lm_state_manifest[0]).toMatchObject({
      key: 'cache',
      shape: [2, 1, 1000, 16, 64],
      fill: 'nan',
      dtype: 'float32',
    });
    expect(b.mimi_state_manifest.filter((e) => e.dtype === 'bool')).toHaveLength(20);
    expect(b.mimi_state_manifest.filter((e) => e.dtype === 'int64')).toHaveLength(8);
  });
  it('refuses a manifest out of order or with wrong names', () => {
    const swapped = structuredClone(json);
    swapped.flow_lm_state_manifest[1].output_name = 'out_state_2';
    expect(() => parseBundleJson(swapped)).toThrow(BundleError);
    expect(() => parseBundleJson({ ...json, schema_version: 1 })).toThrow(BundleError);
  });
});

describe('npy, WAV, resampling', () => {
  it('npy round trip and bos_before_voice shape', () => {
    const bos = parseNpyFloat32(files.get('bos_before_voice')!);
    expect(bos.dims).toEqual([1, 1, 1024]);
    expect(parseNpyFloat32(writeNpyFloat32([2, 2], Float32Array.of(1, 2, 3, 4))).data).toEqual(Float32Array.of(1, 2, 3, 4));
  });
  it('WAV pcm16/float32 round trip; stereo downmixed', () => {
    const x = Float32Array.from({ length: 100 }, (_, i) => Math.sin(i / 5) * 0.8);
    const back16 = decodeWav(encodeWav(x, 24000));
    expect(back16.sampleRate).toBe(24000);
    back16.samples.forEach((v, i) => expect(Math.abs(v - x[i]!)).toBeLessThan(1 / 16000));
    expect(decodeWav(encodeWav(x, 48000, 'float32')).samples).toEqual(x);
    expect(() => decodeWav(new Uint8Array(20))).toThrow(/RIFF/);
  });
  it('resampling 48 kHz → 24 kHz keeps a 1 kHz tone and removes a 20 kHz one', () => {
    const n = 4800;
    const low = Float32Array.from({ length: n }, (_, i) => Math.sin((2 * Math.PI * 1000 * i) / 48000));
    const high = Float32Array.from({ length: n }, (_, i) => Math.sin((2 * Math.PI * 20000 * i) / 48000));
    const rms = (a: Float32Array) => Math.sqrt(a.subarray(100, a.length - 100).reduce((s, v) => s + v * v, 0) / (a.length - 200));
    expect(rms(resample(low, 48000, 24000))).toBeCloseTo(Math.SQRT1_2, 1);
    expect(rms(resample(high, 48000, 24000))).toBeLessThan(0.05);
    expect(prepareCloneAudio({ sampleRate: 48000, samples: new Float32Array(48000 * 40) }, 24000, 30).length).toBe(24000 * 30);
  });
});

describe('voice store serializer', () => {
  const voice: StoredVoice = {
    id: 'clone-1',
    name: 'Me',
    bundleId: 'sidetalk-fixture/english_2026-04',
    createdAt: 1_700_000_000_000,
    consent: { statement: 'This is my own voice and I agree to clone it.', acceptedAt: 1_700_000_000_000 },
    synthetic: true,
    tensors: presetVoice({ name: 'x', amplitude: 0.4 }, 3),
  };
  it('round-trips through bytes and the in-memory store', async () => {
    const back = deserializeVoice(serializeVoice(voice));
    expect(back.consent).toEqual(voice.consent);
    expect(back.tensors.get('transformer.layers.0.self_attn/cache')!.data).toEqual(
      voice.tensors.get('transformer.layers.0.self_attn/cache')!.data,
    );
    const store = new InMemoryVoiceStore();
    await store.put(voice);
    expect(await store.list('other')).toEqual([]);
    expect((await store.list(voice.bundleId)).map((v) => v.id)).toEqual(['clone-1']);
    expect(await store.delete('clone-1')).toBe(true);
    expect(await store.get('clone-1')).toBeUndefined();
  });
  it('rejects bad magic, versions, headers without consent, payload tampering and NaN tensors', () => {
    const bytes = serializeVoice(voice);
    const v2 = bytes.slice();
    new DataView(v2.buffer).setUint16(7, 99, true);
    expect(() => deserializeVoice(v2)).toThrow(/version 99/);
    expect(() => deserializeVoice(new TextEncoder().encode('NOTAVOICE....'))).toThrow(VoiceFileError);
    const noConsent = bytes.slice();
    const text = new TextDecoder().decode(noConsent);
    const at = text.indexOf('"consent"');
    noConsent[at + 1] = 'X'.charCodeAt(0); // header key renamed → consent missing
    expect(() => deserializeVoice(noConsent)).toThrow(/bad header/);
    expect(() => deserializeVoice(bytes.subarray(0, bytes.length - 10))).toThrow(/bad tensors/);
    const nan = { ...voice, tensors: new Map(voice.tensors) };
    nan.tensors.set('transformer.layers.0.self_attn/cache', { dtype: 'float32', dims: [1], data: Float32Array.of(NaN) });
    expect(() => deserializeVoice(serializeVoice(nan))).toThrow(/non-finite/);
  });
});
