/**
 * Malicious and damaged avatar GLBs (split from the user-files fuzz; WAV and voice files: voice-files-fuzz.test.ts,
 * character files: character-files-fuzz.test.ts). Each must be refused with the parser's own error class and a
 * readable message (or accepted as a valid file), never crash with a TypeError/RangeError from deep inside, and the
 * size cap must apply before parsing.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GlbError, MAX_AVATAR_BYTES, parseGlb, validateAvatarGlb } from '../../../core/avatar/glb-check';
import { CRASH_CRITICAL_MORPHS, MODEL_ROOT, REQUIRED_BONES } from '../../../core/avatar/required-names';
import { jsonSafe, mutate, Rng } from './arbitrary';

// ---------- GLB ----------

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
