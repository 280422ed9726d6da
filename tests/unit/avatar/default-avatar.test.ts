import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { maxMorphDisplacement, morphNamesByMesh, nodeNames, parseGlb, validateAvatarGlb } from '../../../core/avatar/glb-check';
import {
  DEFAULT_AVATAR_MORPHS,
  MODEL_ROOT,
  MODELLED_MORPHS,
  REQUIRED_BONES,
  VISEME_MORPHS,
} from '../../../core/avatar/required-names';
import { buildAvatarScene, DEFAULT_AVATAR_PATH, exportGlb } from '../../../scripts/avatar/build-avatar';

const bytes = new Uint8Array(readFileSync(DEFAULT_AVATAR_PATH));
const glb = parseGlb(bytes);

describe('generated default avatar', () => {
  it('is small and passes the user-avatar validator without warnings', () => {
    expect(bytes.byteLength).toBeLessThan(2 * 1024 * 1024);
    const r = validateAvatarGlb(bytes);
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
  });

  it('has the Armature root and every required bone', () => {
    const names = nodeNames(glb.json);
    expect(names.has(MODEL_ROOT)).toBe(true);
    for (const b of REQUIRED_BONES) expect(names.has(b), b).toBe(true);
    expect(glb.json.skins?.[0]?.joints.length).toBeGreaterThanOrEqual(REQUIRED_BONES.length);
  });

  it('carries all 15 visemes and 52 ARKit morph names', () => {
    const all = new Set([...morphNamesByMesh(glb.json).values()].flat());
    for (const m of DEFAULT_AVATAR_MORPHS) expect(all.has(m), m).toBe(true);
  });

  it('really models the mouth, eyes, blinks and brows (non-zero vertex deltas)', () => {
    for (const m of MODELLED_MORPHS) expect(maxMorphDisplacement(glb, m), m).toBeGreaterThan(0.002);
    // Open vowels open clearly wider than closures move; blinks travel most of an eyeball.
    expect(maxMorphDisplacement(glb, 'viseme_aa')).toBeGreaterThan(0.02);
    expect(maxMorphDisplacement(glb, 'eyeBlinkLeft')).toBeGreaterThan(0.015);
    expect(maxMorphDisplacement(glb, 'viseme_sil')).toBe(0);
    expect(VISEME_MORPHS.length).toBe(15);
  });

  it('is what the generator produces today (committed output is up to date)', async () => {
    const fresh = new Uint8Array(await exportGlb(buildAvatarScene()));
    expect(fresh.byteLength).toBe(bytes.byteLength);
    expect(Buffer.compare(Buffer.from(fresh), Buffer.from(bytes))).toBe(0);
  });
});
