/**
 * Malicious and damaged audio uploads and cloned-voice files: WAV, STVOICE and PTVB1 (split from the user-files
 * fuzz; avatars: avatar-glb-fuzz.test.ts, character files: character-files-fuzz.test.ts). Each must be refused with
 * the parser's own error class and a readable message (or accepted as a valid file), never crash with a
 * TypeError/RangeError from deep inside, and size caps must apply before parsing.
 */
import { describe, expect, it } from 'vitest';
import {
  deserializeVoice,
  MAX_VOICE_FILE_BYTES,
  serializeVoice,
  VoiceFileError,
  type StoredVoice,
} from '../../../core/tts/voice-store';
import { parseVoicesBin, VoicesBinError, writeVoicesBin } from '../../../core/tts/voices-bin';
import { decodeWav, encodeWav, WavError } from '../../../core/tts/wav';
import { Rng } from './arbitrary';

// ---------- WAV ----------

function expectWav(bytes: Uint8Array, label: string): boolean {
  try {
    const out = decodeWav(bytes);
    expect(out.samples).toBeInstanceOf(Float32Array);
    expect(out.sampleRate).toBeGreaterThan(0);
    // Never more samples than the bytes could hold: a lying header cannot make us allocate gigabytes.
    expect(out.samples.length).toBeLessThanOrEqual(bytes.length / 2);
    return true;
  } catch (err) {
    expect(err, `${label}: ${(err as Error).name}: ${(err as Error).message}`).toBeInstanceOf(WavError);
    expect((err as Error).message.length).toBeGreaterThan(3);
    return false;
  }
}

describe('hostile WAV uploads', () => {
  const tone = Float32Array.from({ length: 2400 }, (_, i) => Math.sin(i / 10) * 0.5);
  const pcm16 = encodeWav(tone, 24000, 'pcm16');
  const f32 = encodeWav(tone, 48000, 'float32');

  it('decodes the valid files', () => {
    expect(expectWav(pcm16, 'pcm16')).toBe(true);
    expect(expectWav(f32, 'f32')).toBe(true);
  });

  it('refuses the classic hostile headers with WavError', () => {
    const set32 = (b: Uint8Array, at: number, v: number) => (new DataView(b.buffer).setUint32(at, v, true), b);
    const set16 = (b: Uint8Array, at: number, v: number) => (new DataView(b.buffer).setUint16(at, v, true), b);
    const cases: [string, Uint8Array, boolean][] = [
      ['empty', new Uint8Array(0), false],
      ['not riff', new TextEncoder().encode('ID3\u0003 not a wav at all'), false],
      ['fmt size 4 GB', set32(pcm16.slice(), 16, 0xffffffff), false],
      ['fmt size 2', set32(pcm16.slice(), 16, 2), false],
      ['0 channels', set16(pcm16.slice(), 22, 0), false],
      ['0 Hz', set32(pcm16.slice(), 24, 0), false],
      ['8-bit', set16(pcm16.slice(), 34, 8), false],
      ['mu-law', set16(pcm16.slice(), 20, 7), false],
      ['no data chunk', pcm16.slice(0, 36), false],
      [
        'data before fmt',
        (() => {
          const b = pcm16.slice();
          b.set(new TextEncoder().encode('data'), 12);
          return b;
        })(),
        false,
      ],
      // A data size larger than the file is tolerated (streaming writers leave it at 0xFFFFFFFF) but bounded by the bytes.
      ['data size 4 GB', set32(pcm16.slice(), 40, 0xffffffff), true],
      ['65535 channels', set16(pcm16.slice(), 22, 65535), true],
    ];
    for (const [label, bytes, decodes] of cases) expect(expectWav(bytes, label), label).toBe(decodes);
  });

  it('thousands of random mutations: decoded within bounds or WavError', () => {
    const rng = new Rng(0x3a4);
    for (let i = 0; i < 3000; i++) {
      let bytes: Uint8Array = (rng.chance(0.5) ? pcm16 : f32).slice();
      const how = rng.int(0, 3);
      if (how === 0) for (let k = 0; k < rng.int(1, 8); k++) bytes[rng.int(0, 64)] = rng.int(0, 255);
      else if (how === 1) bytes = bytes.subarray(0, rng.int(0, bytes.length));
      else if (how === 2)
        new DataView(bytes.buffer).setUint32(4 * rng.int(1, 10), rng.pick([0, 1, 3, 0xffffffff, 0x7fffffff, 16, 18, 40]), true);
      else bytes = rng.bytes(rng.int(0, 128));
      expectWav(bytes, `wav #${i}`);
    }
  });
});

// ---------- cloned-voice files ----------

function voice(): StoredVoice {
  return {
    id: 'voice-1',
    name: 'Me',
    bundleId: 'sidetalk-fixture/english_2026-04',
    createdAt: 1_700_000_000_000,
    consent: { statement: 'This is my voice, or I have permission.', acceptedAt: 1_700_000_000_000 },
    synthetic: true,
    tensors: new Map([
      [
        'transformer.layers.0.self_attn/cache',
        { dtype: 'float32' as const, dims: [2, 1, 3, 4], data: new Float32Array(24).fill(0.5) },
      ],
      ['transformer.layers.0.self_attn/offset', { dtype: 'int64' as const, dims: [1], data: BigInt64Array.of(3n) }],
    ]),
  };
}

function expectVoice(bytes: Uint8Array, label: string): boolean {
  try {
    deserializeVoice(bytes);
    return true;
  } catch (err) {
    expect(err, `${label}: ${(err as Error).name}: ${(err as Error).message}`).toBeInstanceOf(VoiceFileError);
    return false;
  }
}

describe('hostile voice files', () => {
  const good = serializeVoice(voice());

  it('round-trips a valid voice', () => {
    expect(deserializeVoice(good).tensors.get('transformer.layers.0.self_attn/offset')?.data).toEqual(BigInt64Array.of(3n));
  });

  it('refuses specific attacks with VoiceFileError', () => {
    const header = (json: unknown) => {
      const text = new TextEncoder().encode(JSON.stringify(json));
      const payload = writeVoicesBin([{ name: 'voice-1', tensors: voice().tensors }]);
      const out = new Uint8Array(13 + text.length + payload.length);
      out.set(new TextEncoder().encode('STVOICE'), 0);
      new DataView(out.buffer).setUint16(7, 1, true);
      new DataView(out.buffer).setUint32(9, text.length, true);
      out.set(text, 13);
      out.set(payload, 13 + text.length);
      return out;
    };
    const meta = { id: 'voice-1', name: 'Me', bundleId: 'b', createdAt: 1, consent: voice().consent, synthetic: true };
    const badName = (() => {
      // A tensor key that is not UTF-8.
      const b = good.slice();
      const at = b.indexOf('t'.charCodeAt(0), 13 + new DataView(b.buffer).getUint32(9, true) + 9);
      b[at] = 0xff;
      return b;
    })();
    const nan = voice();
    (nan.tensors.get('transformer.layers.0.self_attn/cache')!.data as Float32Array)[3] = NaN;
    const cases: [string, Uint8Array][] = [
      ['empty', new Uint8Array(0)],
      ['wrong magic', new TextEncoder().encode('RIFF....WAVEfmt ')],
      [
        'version 2',
        (() => {
          const b = good.slice();
          new DataView(b.buffer).setUint16(7, 2, true);
          return b;
        })(),
      ],
      [
        'header length 4 GB',
        (() => {
          const b = good.slice();
          new DataView(b.buffer).setUint32(9, 0xffffffff, true);
          return b;
        })(),
      ],
      ['no consent', header({ ...meta, consent: undefined })],
      ['not synthetic', header({ ...meta, synthetic: false })],
      ['huge name', header({ ...meta, name: 'x'.repeat(100_000) })],
      ['header not json', header('}{')],
      ['invalid utf-8 in a tensor key', badName],
      ['NaN weights', serializeVoice(nan)],
      ['truncated tensors', good.subarray(0, good.length - 3)],
      ['trailing bytes', new Uint8Array([...good, 0])],
    ];
    for (const [label, bytes] of cases) expect(expectVoice(bytes, label), label).toBe(false);
  });

  it('refuses an oversized file before parsing it', () => {
    const big = new Uint8Array(MAX_VOICE_FILE_BYTES + 1);
    big.set(good, 0);
    expect(() => deserializeVoice(big)).toThrow(/limit/);
  });

  it('thousands of random mutations: a voice or VoiceFileError, and PTVB1 only VoicesBinError', () => {
    const rng = new Rng(0x7015e);
    const ptvb = writeVoicesBin([
      { name: 'a', tensors: voice().tensors },
      { name: 'b', tensors: voice().tensors },
    ]);
    for (let i = 0; i < 3000; i++) {
      const src = rng.chance(0.5) ? good : ptvb;
      let bytes: Uint8Array = src.slice();
      const how = rng.int(0, 3);
      if (how === 0) for (let k = 0; k < rng.int(1, 8); k++) bytes[rng.int(0, bytes.length - 1)] = rng.int(0, 255);
      else if (how === 1) bytes = bytes.subarray(0, rng.int(0, bytes.length));
      else if (how === 2)
        new DataView(bytes.buffer).setUint32(rng.int(0, bytes.length - 4), rng.pick([0, 0xffffffff, 0x10000, 7]), true);
      else bytes = rng.bytes(rng.int(0, 200));
      if (src === good) expectVoice(bytes, `voice #${i}`);
      else {
        try {
          parseVoicesBin(bytes);
        } catch (err) {
          expect(err, `ptvb #${i}: ${(err as Error).name}: ${(err as Error).message}`).toBeInstanceOf(VoicesBinError);
        }
      }
    }
  });
});
