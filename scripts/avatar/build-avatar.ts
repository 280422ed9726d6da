/**
 * Builds the default Sidetalk avatar (public/avatars/sidetalk-default.glb) from code: a friendly stylized character
 * on a Mixamo-named skeleton with all TalkingHead morph targets, every one of them really modelled.
 *
 * Run: npx jiti scripts/avatar/build-avatar.ts [out.glb]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import * as THREE from 'three';
import { GLTFExporter } from 'three/examples/jsm/exporters/GLTFExporter.js';
import { installNodePolyfills } from './node-polyfills';
import { bindRigid, mergeParts, toSkinnedMesh, transformPart, type Part } from './part';
import { buildRig } from './skeleton';
import { eyeCenter } from './head-shape';
import { buildMouth, MOUTH_MORPHS } from './mouth';
import { buildEyes, EYE_MORPHS } from './eyes';
import { BROW_MORPHS, buildBrows, buildHair, buildSkin, SKIN_MORPHS } from './face-parts';
import { buildBody } from './body-parts';

export const DEFAULT_AVATAR_PATH = 'public/avatars/sidetalk-default.glb';

function morphNames(part: Part, wanted: readonly string[]): string[] {
  return wanted.filter((n) => part.morphs.has(n));
}

export function buildAvatarScene(): THREE.Object3D {
  const rig = buildRig(eyeCenter(1));
  const head = rig.index('Head');
  const headWorld = rig.world('Head');
  const face = (p: Part): Part => bindRigid(transformPart(p, headWorld), head);

  const skinMat = new THREE.MeshStandardMaterial({ name: 'Skin', vertexColors: true, roughness: 0.72, metalness: 0 });
  const clothMat = new THREE.MeshStandardMaterial({
    name: 'Cloth',
    vertexColors: true,
    roughness: 0.85,
    metalness: 0,
    side: THREE.DoubleSide,
  });
  const glossMat = new THREE.MeshStandardMaterial({ name: 'Gloss', vertexColors: true, roughness: 0.18, metalness: 0 });

  const skin = face(buildSkin());
  const mouth = face(buildMouth());
  const brows = face(buildBrows());
  const eyes = buildEyes();
  const balls = face(eyes.balls);
  const lids = face(eyes.lids);
  const body = mergeParts([buildBody(rig), face(buildHair())]);

  const meshes = [
    toSkinnedMesh('AvatarBody', body, clothMat, rig.skeleton),
    toSkinnedMesh('AvatarHead', skin, skinMat, rig.skeleton, morphNames(skin, SKIN_MORPHS)),
    toSkinnedMesh('AvatarEyes', balls, glossMat, rig.skeleton, morphNames(balls, EYE_MORPHS)),
    toSkinnedMesh('AvatarEyelids', lids, skinMat, rig.skeleton, morphNames(lids, EYE_MORPHS)),
    toSkinnedMesh('AvatarMouth', mouth, glossMat, rig.skeleton, MOUTH_MORPHS),
    toSkinnedMesh('AvatarBrows', brows, skinMat, rig.skeleton, morphNames(brows, BROW_MORPHS)),
  ];
  for (const m of meshes) rig.root.add(m);
  rig.root.userData = { generator: 'sidetalk scripts/avatar/build-avatar.ts', licence: 'same as the project' };
  return rig.root;
}

export async function exportGlb(root: THREE.Object3D): Promise<ArrayBuffer> {
  installNodePolyfills();
  const scene = new THREE.Scene();
  scene.add(root);
  const exporter = new GLTFExporter();
  const out = await exporter.parseAsync(scene, { binary: true, onlyVisible: false });
  if (!(out instanceof ArrayBuffer)) throw new Error('GLTFExporter did not return a binary GLB');
  return out;
}

async function main(): Promise<void> {
  const target = resolve(process.argv[2] ?? DEFAULT_AVATAR_PATH);
  const glb = await exportGlb(buildAvatarScene());
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, Buffer.from(glb));
  console.log(`wrote ${target} (${glb.byteLength} bytes)`);
}

const invokedDirectly = process.argv[1] !== undefined && /build-avatar\.ts$/.test(process.argv[1]);
if (invokedDirectly) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
