/**
 * Malicious and damaged user files: avatar GLBs, WAV uploads, cloned-voice files (STVOICE / PTVB1) and character
 * import files. Each must be refused with the parser's own error class and a readable message (or accepted as a
 * valid file), never crash with a TypeError/RangeError from deep inside, and size caps must apply before parsing.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GlbError, MAX_AVATAR_BYTES, parseGlb, validateAvatarGlb } from '../../../core/avatar/glb-check';
import { CRASH_CRITICAL_MORPHS, MODEL_ROOT, REQUIRED_BONES } from '../../../core/avatar/required-names';
import {
  CHARACTER_FILE_FORMAT,
  CHARACTER_FILE_VERSION,
  MAX_CHARACTER_FILE_BYTES,
  parseCharacterFile,
} from '../../../core/characters';
import {
  deserializeVoice,
  MAX_VOICE_FILE_BYTES,
  serializeVoice,
  VoiceFileError,
  type StoredVoice,
} from '../../../core/tts/voice-store';
import { parseVoicesBin, VoicesBinError, writeVoicesBin } from '../../../core/tts/voices-bin';
import { decodeWav, encodeWav, WavError } from '../../../core/tts/wav';
import { arbitrary, mutate, Rng } from './arbitrary';

// ---------- GLB ----------

const jsonSafe = (_key: string, value: unknown) => (typeof value === 'bigint' ? String(value) : value);

function glbOf(jsonText: string, bin?: Uint8Array): Uint8Array {
  let text = jsonText;
  while (new TextEncoder().encode(text).length % 4) text += ' ';
  const body = new TextEncoder().encode(text);
  const binLen = bin ? bin.length + ((4 - (bin.length % 4)) % 4) : 0;
  const out = new Uint8Array(12 + 8 + body.length + (bin ? 8 + binLen : 0));
  const dv = new DataView(out.buffer);
  dv.setUint32(0, 0x46546c67, true);
  dv.setUint32(4, 2, true);
  dv.setUint32(8, out.length, true);
  dv.setUint32(12, body.length, true);
  dv.setUint32(16, 0x4e4f534a, true);
  out.set(body, 20);
  if (bin) {
    dv.setUint32(20 + body.length, binLen, true);
    dv.setUint32(24 + body.length, 0x004e4942, true);
    out.set(bin, 28 + body.length);
  }
  return out;
}

function avatarJson(): Record<string, unknown> {
  return {
    asset: { version: '2.0' },
    nodes: [{ name: MODEL_ROOT }, ...REQUIRED_BONES.map((b) => ({ name: b })), { name: 'Face', mesh: 0 }],
    meshes: [
      { name: 'Face', primitives: [{ attributes: {} }], extras: { targetNames: [...CRASH_CRITICAL_MORPHS, 'viseme_aa'] } },
    ],
  };
}

/** validateAvatarGlb's contract: a verdict, never a throw; a refusal always says why in words. */
function expectVerdict(bytes: Uint8Array, label: string) {
  let r: ReturnType<typeof validateAvatarGlb>;
  try {
    r = validateAvatarGlb(bytes);
  } catch (err) {
    throw new Error(`${label}: validateAvatarGlb threw ${(err as Error).name}: ${(err as Error).message}`);
  }
  if (!r.ok) {
    expect(r.errors.length, label).toBeGreaterThan(0);
    for (const e of r.errors) {
      expect(typeof e).toBe('string');
      expect(e.length).toBeGreaterThan(5);
      expect(e.length).toBeLessThan(1000);
    }
  }
  // parseGlb throws only its own error class.
  try {
    parseGlb(bytes);
  } catch (err) {
    expect(err, `${label}: parseGlb threw ${(err as Error).name}: ${(err as Error).message}`).toBeInstanceOf(GlbError);
  }
  return r;
}

describe('hostile avatar GLBs', () => {
  const good = glbOf(JSON.stringify(avatarJson()));

  it('the baseline and the shipped default avatar pass', () => {
    expect(expectVerdict(good, 'baseline').ok).toBe(true);
    expect(expectVerdict(new Uint8Array(readFileSync('public/avatars/sidetalk-default.glb')), 'default avatar').ok).toBe(true);
  });

  it('wrong magic, truncation, huge declared lengths, empty and tiny files: refused in words', () => {
    const cases: [string, Uint8Array, RegExp][] = [
      ['empty', new Uint8Array(0), /Not a GLB/],
      ['tiny', good.subarray(0, 11), /Not a GLB/],
      [
        'fbx',
        (() => {
          const b = good.slice();
          b.set(new TextEncoder().encode('Kayd'), 0);
          return b;
        })(),
        /does not start with "glTF"/,
      ],
      [
        'version 1',
        (() => {
          const b = good.slice();
          new DataView(b.buffer).setUint32(4, 1, true);
          return b;
        })(),
        /version 1/,
      ],
      [
        'declared 4 GB',
        (() => {
          const b = good.slice();
          new DataView(b.buffer).setUint32(8, 0xffffffff, true);
          return b;
        })(),
        /truncated/,
      ],
      [
        'chunk 4 GB',
        (() => {
          const b = good.slice();
          new DataView(b.buffer).setUint32(12, 0xfffffff0, true);
          return b;
        })(),
        /truncated/,
      ],
      ['cut in half', good.subarray(0, good.length >> 1), /truncated/],
      [
        'header only',
        (() => {
          const b = good.slice(0, 20);
          new DataView(b.buffer).setUint32(8, 20, true);
          return b;
        })(),
        /truncated|no JSON chunk/,
      ],
      [
        'no json chunk',
        (() => {
          const b = good.slice();
          new DataView(b.buffer).setUint32(16, 0x004e4942, true);
          return b;
        })(),
        /no JSON chunk/,
      ],
    ];
    for (const [label, bytes, message] of cases) {
      const r = expectVerdict(bytes, label);
      expect(r.ok, label).toBe(false);
      expect(r.errors.join(' '), label).toMatch(message);
    }
  });

  it('JSON bombs and hostile JSON shapes: refused, no TypeError', () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const shapes: string[] = [
      'null',
      '5',
      '"glTF"',
      '[]',
      'true',
      '{}',
      deep(100_000),
      `{"nodes":${deep(50_000)}}`,
      '{"nodes":5}',
      '{"nodes":"Armature"}',
      '{"nodes":[null,5,"x",[]]}',
      '{"nodes":{"length":3}}',
      '{"nodes":[{"name":5},{"name":null},{"name":{"toString":1}}]}',
      '{"meshes":7}',
      '{"meshes":[null]}',
      '{"meshes":[{"primitives":5,"extras":{"targetNames":"viseme_aa"}}]}',
      '{"meshes":[{"extras":null}]}',
      '{"meshes":[{"extras":{"targetNames":[null,{},[1]]}}]}',
      `{"meshes":[{"extras":{"targetNames":${JSON.stringify(Array.from({ length: 200_000 }, (_, i) => `m${i}`))}}}]}`,
      '{"extensionsRequired":"KHR_draco_mesh_compression"}',
      '{"extensionsRequired":[5,null]}',
      '{"extensionsRequired":{}}',
      '{"__proto__":{"nodes":[]},"constructor":{"prototype":{"polluted":1}}}',
      `{"nodes":[{"name":"${MODEL_ROOT}"}],"asset":{"version":${'9'.repeat(400)}}}`,
      '\u0000\u0000\u0000',
      '{"a":"\ud800"}',
      '{"a":1,}',
    ];
    for (const text of shapes) {
      const r = expectVerdict(glbOf(text), text.slice(0, 60));
      expect(r.ok).toBe(false);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('thousands of random byte flips, truncations and field overwrites: always a verdict', () => {
    const rng = new Rng(0x61b);
    const withBin = glbOf(JSON.stringify(avatarJson()), rng.bytes(64));
    for (let i = 0; i < 3000; i++) {
      const base = rng.chance(0.5) ? good : withBin;
      let bytes: Uint8Array = base.slice();
      const how = rng.int(0, 4);
      if (how === 0) for (let k = 0; k < rng.int(1, 16); k++) bytes[rng.int(0, bytes.length - 1)] = rng.int(0, 255);
      else if (how === 1) bytes = bytes.subarray(0, rng.int(0, bytes.length));
      else if (how === 2)
        new DataView(bytes.buffer).setUint32(
          4 * rng.int(0, 6),
          rng.pick([0, 1, 7, 0xffffffff, 0x80000000, bytes.length, bytes.length + 4]),
          true,
        );
      else if (how === 3) bytes = glbOf(JSON.stringify(mutate(rng, avatarJson()), jsonSafe) ?? 'null');
      else bytes = rng.bytes(rng.int(0, 256));
      expectVerdict(bytes, `glb #${i} (how ${how})`);
    }
  });

  it('refuses a file over the size cap before reading it', () => {
    const big = new Uint8Array(MAX_AVATAR_BYTES + 1);
    big.set(good, 0);
    const r = expectVerdict(big, 'over cap');
    expect(r.ok).toBe(false);
    expect(r.errors[0]).toMatch(/limit is 30\.0 MB/);
  });
});

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

// ---------- character import files ----------

describe('hostile character import files', () => {
  const ctx = () => {
    let n = 0;
    return {
      existingIds: new Set<string>(['user:a']),
      existingNames: new Set<string>(['Ada']),
      now: 9_000,
      newId: () => `user:n${++n}`,
    };
  };
  const character = {
    id: 'user:a',
    name: 'Ada',
    avatar: { kind: 'default' },
    voice: { kind: 'builtin', voiceId: 'alba' },
    persona: { name: 'Ada', style: 'Dry wit.', greeting: 'Hi.' },
    pronunciations: [{ word: 'Lovelace', sayAs: 'Love lace' }],
    createdAt: 1,
    updatedAt: 2,
    builtIn: false,
  };
  const file = { format: CHARACTER_FILE_FORMAT, version: CHARACTER_FILE_VERSION, exportedAt: 1, characters: [character] };

  function expectImport(text: string, label: string) {
    let r: ReturnType<typeof parseCharacterFile>;
    try {
      r = parseCharacterFile(text, ctx());
    } catch (err) {
      throw new Error(`${label}: parseCharacterFile threw ${(err as Error).message}`);
    }
    if (!r.ok) {
      expect(r.error.length).toBeGreaterThan(10);
      expect(r.error.length).toBeLessThan(2000);
    } else {
      // Whatever is accepted is clean: fresh unique ids, no built-in flags, no control characters in names.
      for (const c of r.characters) {
        expect(c.builtIn).toBe(false);
        expect(c.id).not.toBe('user:a');
        expect(c.name).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/);
      }
    }
    return r;
  }

  it('accepts the valid file (renaming the colliding id and name)', () => {
    const r = expectImport(JSON.stringify(file), 'valid');
    expect(r.ok && r.characters[0]).toMatchObject({ id: 'user:n1', name: 'Ada (2)' });
  });

  it('refuses oversized, non-JSON, wrong-format and newer-version files with clear errors', () => {
    const cases: [string, string, RegExp][] = [
      ['huge', ' '.repeat(MAX_CHARACTER_FILE_BYTES + 1), /too large/],
      ['multibyte over cap', '{"a":"' + 'é'.repeat(MAX_CHARACTER_FILE_BYTES / 2) + '"}', /too large/],
      ['not json', '<html>', /isn't valid JSON/],
      ['deep nesting', '['.repeat(100_000), /isn't valid JSON/],
      ['array', '[1,2]', /isn't a Sidetalk characters file/],
      ['newer', JSON.stringify({ ...file, version: 99 }), /newer Sidetalk/],
      ['no characters', JSON.stringify({ ...file, characters: [] }), /problems/],
      ['51 characters', JSON.stringify({ ...file, characters: Array.from({ length: 51 }, () => character) }), /problems/],
      ['html in id', JSON.stringify({ ...file, characters: [{ ...character, id: '<img src=x>' }] }), /problems/],
      ['control chars', JSON.stringify({ ...file, characters: [{ ...character, name: 'A\u0007da' }] }), /problems/],
      [
        'path in glb ref',
        JSON.stringify({ ...file, characters: [{ ...character, avatar: { kind: 'user', glbId: '../../x' } }] }),
        /problems/,
      ],
    ];
    for (const [label, text, message] of cases) {
      const r = expectImport(text, label);
      expect(r.ok, label).toBe(false);
      expect(!r.ok && r.error, label).toMatch(message);
    }
  });

  it('thousands of random damaged files: imported cleanly or refused in words', () => {
    const rng = new Rng(0xc4a7);
    let accepted = 0;
    for (let i = 0; i < 2000; i++) {
      const how = rng.int(0, 3);
      const text =
        how === 0
          ? (JSON.stringify(mutate(rng, file), jsonSafe) ?? 'undefined')
          : how === 1
            ? JSON.stringify(file).slice(0, rng.int(0, 400))
            : how === 2
              ? (JSON.stringify(arbitrary(rng, 3), jsonSafe) ?? '')
              : String.fromCharCode(...rng.bytes(rng.int(0, 300)));
      if (expectImport(text, `file #${i}`).ok) accepted++;
    }
    expect(accepted).toBeGreaterThan(20);
  });
});
