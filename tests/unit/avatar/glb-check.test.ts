import { describe, expect, it } from 'vitest';
import { GlbError, parseGlb, validateAvatarGlb } from '../../../core/avatar/glb-check';
import { CRASH_CRITICAL_MORPHS, MODEL_ROOT, REQUIRED_BONES } from '../../../core/avatar/required-names';

/** Writes a GLB container around a JSON object (no BIN chunk). */
function makeGlb(json: unknown): Uint8Array {
  let text = JSON.stringify(json);
  while (text.length % 4) text += ' ';
  const body = new TextEncoder().encode(text);
  const out = new Uint8Array(12 + 8 + body.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, 0x46546c67, true);
  dv.setUint32(4, 2, true);
  dv.setUint32(8, out.length, true);
  dv.setUint32(12, body.length, true);
  dv.setUint32(16, 0x4e4f534a, true);
  out.set(body, 20);
  return out;
}

function avatarJson(opts: { bones?: readonly string[]; morphs?: readonly string[]; prefix?: string } = {}): unknown {
  const bones = opts.bones ?? REQUIRED_BONES;
  return {
    asset: { version: '2.0' },
    nodes: [{ name: MODEL_ROOT }, ...bones.map((b) => ({ name: `${opts.prefix ?? ''}${b}` })), { name: 'Face', mesh: 0 }],
    meshes: [
      {
        name: 'Face',
        primitives: [{ attributes: {} }],
        extras: { targetNames: [...(opts.morphs ?? CRASH_CRITICAL_MORPHS), 'viseme_aa'] },
      },
    ],
  };
}

describe('validateAvatarGlb', () => {
  it('accepts a minimal avatar with every required bone and crash-critical morph', () => {
    const r = validateAvatarGlb(makeGlb(avatarJson()));
    expect(r.errors).toEqual([]);
    expect(r.ok).toBe(true);
  });

  it('refuses buffers and images that name anything but a data: URI, with a clear error', () => {
    const base = avatarJson() as Record<string, unknown>;
    const withUris = (buffers: unknown[], images: unknown[]) => validateAvatarGlb(makeGlb({ ...base, buffers, images }));
    const embedded = withUris(
      [{ byteLength: 4 }, { uri: 'data:application/octet-stream;base64,AAAAAA==', byteLength: 4 }],
      [{ bufferView: 0, mimeType: 'image/png' }, { uri: 'DATA:image/png;base64,iVBORw0KGgo=' }],
    );
    expect(embedded.errors).toEqual([]);
    expect(embedded.ok).toBe(true);
    for (const [buffers, images] of [
      [[{ uri: 'https://tracker.example/pixel.bin', byteLength: 4 }], []],
      [[{ uri: 'avatar.bin', byteLength: 4 }], []],
      [[], [{ uri: 'file:///home/user/.ssh/id_rsa' }]],
      [[], [{ uri: 'blob:chrome-extension://x/1' }]],
      [[], [{ uri: 42 }]],
    ] as const) {
      const r = withUris([...buffers], [...images]);
      expect(r.ok, JSON.stringify([buffers, images])).toBe(false);
      expect(r.errors.join(' ')).toMatch(/outside itself.*self-contained GLB/);
    }
  });

  it('rejects a wrong magic with a clear message', () => {
    const glb = makeGlb(avatarJson());
    glb.set(new TextEncoder().encode('FBX '), 0);
    const r = validateAvatarGlb(glb);
    expect(r.ok).toBe(false);
    expect(r.errors[0]).toMatch(/Not a GLB file/);
    expect(() => parseGlb(glb)).toThrow(GlbError);
  });

  it('rejects a truncated file', () => {
    const glb = makeGlb(avatarJson());
    const r = validateAvatarGlb(glb.slice(0, glb.length - 40));
    expect(r.ok).toBe(false);
    expect(r.errors[0]).toMatch(/truncated/);
    expect(validateAvatarGlb(glb.slice(0, 10)).errors[0]).toMatch(/only 10 bytes/);
  });

  it('names missing bones and hints at mixamorig prefixes', () => {
    const r = validateAvatarGlb(makeGlb(avatarJson({ bones: REQUIRED_BONES.filter((b) => b !== 'LeftEye' && b !== 'Head') })));
    expect(r.ok).toBe(false);
    expect(r.errors.join(' ')).toMatch(/Missing 2 required bone\(s\): Head, LeftEye/);
    const mixamo = validateAvatarGlb(makeGlb(avatarJson({ prefix: 'mixamorig:' })));
    expect(mixamo.errors.join(' ')).toMatch(/mixamorig/);
  });

  it('names missing crash-critical morphs, and refuses a face with none', () => {
    const r = validateAvatarGlb(makeGlb(avatarJson({ morphs: CRASH_CRITICAL_MORPHS.filter((m) => m !== 'cheekPuff') })));
    expect(r.errors.join(' ')).toMatch(/required morph target\(s\): cheekPuff/);
    const none = avatarJson();
    (none as { meshes: Array<{ extras: { targetNames: string[] } }> }).meshes[0]!.extras.targetNames = [];
    expect(validateAvatarGlb(makeGlb(none)).errors.join(' ')).toMatch(/No morph targets/);
  });

  it('enforces the size cap before parsing', () => {
    const glb = makeGlb(avatarJson());
    const r = validateAvatarGlb(glb, 100);
    expect(r.ok).toBe(false);
    expect(r.errors[0]).toMatch(/limit is/);
  });

  it('rejects a damaged JSON chunk', () => {
    const glb = makeGlb(avatarJson());
    glb[21] = 0x7b; // '{{' …
    glb[20] = 0x7b;
    glb[22] = 0x7b;
    expect(validateAvatarGlb(glb).errors[0]).toMatch(/not valid JSON/);
  });
});
