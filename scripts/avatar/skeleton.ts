/**
 * The avatar's skeleton: Mixamo bone names and conventions (each child sits along its parent's local +Y), because
 * TalkingHead's pose templates set absolute Mixamo-convention rotations on these bones.
 *
 * The rest pose *is* TalkingHead's own 'straight' pose, read from the installed package at build time: the mesh is
 * authored around the joints in that pose, so when TalkingHead applies 'straight' the character looks exactly as
 * modelled, and other poses/gestures bend it the way they bend any Mixamo rig.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as THREE from 'three';
import { MODEL_ROOT } from '../../core/avatar/required-names';
import type { Vec3 } from './part';

type Euler = { x: number; y: number; z: number };

/** Reads `'Bone.rotation':{x:…, y:…, z:…}` entries of the 'straight' template from talkinghead.mjs. */
export function readStraightPose(): Map<string, Euler> {
  const require = createRequire(import.meta.url);
  const file = require.resolve('@met4citizen/talkinghead/modules/talkinghead.mjs');
  const src = readFileSync(file, 'utf8');
  const start = src.indexOf("'straight':{");
  if (start < 0) throw new Error('talkinghead.mjs: straight pose template not found');
  const block = src.slice(start, src.indexOf('}\n      }', start));
  const out = new Map<string, Euler>();
  const re = /'(\w+)\.rotation':\{x:([-\d.]+), ?y:([-\d.]+), ?z:([-\d.]+)\}/g;
  for (const m of block.matchAll(re)) {
    out.set(m[1]!, { x: Number(m[2]), y: Number(m[3]), z: Number(m[4]) });
  }
  if (out.size < 40) throw new Error(`talkinghead.mjs: straight pose parsed only ${out.size} bones`);
  return out;
}

interface BoneSpec {
  name: string;
  parent: string | null;
  offset: Vec3;
}

const FINGERS: Array<[string, number, number[]]> = [
  // name, sideways spread (local z), joint lengths
  ['Thumb', 0.03, [0.025, 0.03, 0.025]],
  ['Index', 0.018, [0.085, 0.03, 0.022]],
  ['Middle', 0.004, [0.088, 0.032, 0.024]],
  ['Ring', -0.01, [0.084, 0.03, 0.022]],
  ['Pinky', -0.022, [0.076, 0.024, 0.018]],
];

/** Bone list in parent-before-child order. Eye positions come from the face design. */
export function boneSpecs(eyeLeft: Vec3): BoneSpec[] {
  const specs: BoneSpec[] = [
    { name: 'Hips', parent: null, offset: [0, 0.99, 0] },
    { name: 'Spine', parent: 'Hips', offset: [0, 0.1, 0] },
    { name: 'Spine1', parent: 'Spine', offset: [0, 0.115, 0] },
    { name: 'Spine2', parent: 'Spine1', offset: [0, 0.13, 0] },
    { name: 'Neck', parent: 'Spine2', offset: [0, 0.125, 0] },
    { name: 'Head', parent: 'Neck', offset: [0, 0.085, 0] },
    { name: 'HeadTop_End', parent: 'Head', offset: [0, 0.3, 0] },
    { name: 'LeftEye', parent: 'Head', offset: eyeLeft },
    { name: 'RightEye', parent: 'Head', offset: [-eyeLeft[0], eyeLeft[1], eyeLeft[2]] },
  ];
  for (const [side, sx] of [
    ['Left', 1],
    ['Right', -1],
  ] as const) {
    specs.push(
      { name: `${side}Shoulder`, parent: 'Spine2', offset: [0.055 * sx, 0.1, 0.0] },
      { name: `${side}Arm`, parent: `${side}Shoulder`, offset: [0, 0.11, 0] },
      { name: `${side}ForeArm`, parent: `${side}Arm`, offset: [0, 0.25, 0] },
      { name: `${side}Hand`, parent: `${side}ForeArm`, offset: [0, 0.23, 0] },
    );
    for (const [finger, spread, lengths] of FINGERS) {
      let parent = `${side}Hand`;
      lengths.forEach((len, k) => {
        const name = `${side}Hand${finger}${k + 1}`;
        specs.push({ name, parent, offset: k === 0 ? [0, len, spread * sx] : [0, len, 0] });
        parent = name;
      });
    }
    specs.push(
      { name: `${side}UpLeg`, parent: 'Hips', offset: [0.085 * sx, -0.06, 0] },
      { name: `${side}Leg`, parent: `${side}UpLeg`, offset: [0, 0.42, 0] },
      { name: `${side}Foot`, parent: `${side}Leg`, offset: [0, 0.41, 0] },
      { name: `${side}ToeBase`, parent: `${side}Foot`, offset: [0, 0.12, 0] },
    );
  }
  return specs;
}

export interface Rig {
  root: THREE.Object3D;
  bones: THREE.Bone[];
  skeleton: THREE.Skeleton;
  index: (name: string) => number;
  /** World matrix of a bone at rest (the 'straight' pose). */
  world: (name: string) => THREE.Matrix4;
  worldPos: (name: string) => THREE.Vector3;
}

export function buildRig(eyeLeft: Vec3): Rig {
  const pose = readStraightPose();
  const root = new THREE.Object3D();
  root.name = MODEL_ROOT;
  const byName = new Map<string, THREE.Bone>();
  const bones: THREE.Bone[] = [];
  for (const s of boneSpecs(eyeLeft)) {
    const b = new THREE.Bone();
    b.name = s.name;
    b.position.set(...s.offset);
    const r = pose.get(s.name);
    if (r) b.rotation.set(r.x, r.y, r.z);
    (s.parent ? byName.get(s.parent)! : root).add(b);
    byName.set(s.name, b);
    bones.push(b);
  }
  root.updateMatrixWorld(true);
  const skeleton = new THREE.Skeleton(bones);
  const get = (name: string): THREE.Bone => {
    const b = byName.get(name);
    if (!b) throw new Error(`no bone ${name}`);
    return b;
  };
  return {
    root,
    bones,
    skeleton,
    index: (name) => bones.indexOf(get(name)),
    world: (name) => get(name).matrixWorld.clone(),
    worldPos: (name) => new THREE.Vector3().setFromMatrixPosition(get(name).matrixWorld),
  };
}
