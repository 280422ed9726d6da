/**
 * The body below the head: a rounded sweater torso, neck and collar, sleeves with mitten hands, trousers and
 * sneakers. Built in world space around the rest ('straight') joints and skinned by distance to bone segments, so
 * TalkingHead's breathing, posing and gestures bend it smoothly.
 */
import * as THREE from 'three';
import { gridPart, mergeParts, mixRgb, transformPart, type Influence, type Part, type Rgb, type Vec3 } from './part';
import { PALETTE } from './head-shape';
import type { Rig } from './skeleton';

interface Segment {
  bone: number;
  a: THREE.Vector3;
  b: THREE.Vector3;
}

function segDistance(p: THREE.Vector3, s: Segment): number {
  const ab = s.b.clone().sub(s.a);
  const t = Math.min(1, Math.max(0, p.clone().sub(s.a).dot(ab) / Math.max(1e-9, ab.lengthSq())));
  return p.distanceTo(s.a.clone().addScaledVector(ab, t));
}

/** Inverse-distance skin weights (power 5 keeps joints soft but limbs rigid). */
export function weightBySegments(part: Part, segs: Segment[]): Part {
  const v = new THREE.Vector3();
  part.influences = [];
  for (let i = 0; i < part.positions.length; i += 3) {
    v.set(part.positions[i]!, part.positions[i + 1]!, part.positions[i + 2]!);
    const ws = segs.map((s) => [s.bone, 1 / Math.pow(segDistance(v, s) + 0.01, 5)] as [number, number]);
    ws.sort((x, y) => y[1] - x[1]);
    const inf: Influence = ws.slice(0, 4);
    part.influences.push(inf);
  }
  return part;
}

/** A tapered tube along a bone's local +Y, from y0 to y1, moved to world space. */
function tube(m: THREE.Matrix4, y0: number, y1: number, r0: number, r1: number, color: (t: number) => Rgb): Part {
  const part = gridPart(
    18,
    10,
    (u, v) => {
      const a = u * Math.PI * 2;
      // Rounded ends: radius eases to ~0 at both caps.
      const cap = Math.sqrt(Math.max(0, Math.sin(Math.PI * Math.min(1, Math.max(0, v * 1.12 - 0.06)))));
      const r = (r0 + (r1 - r0) * v) * (0.25 + 0.75 * Math.min(1, cap * 1.6));
      return { p: [r * Math.sin(a), y0 + (y1 - y0) * v, r * Math.cos(a)], c: color(v) };
    },
    { wrapU: true, flip: true },
  );
  return transformPart(part, m);
}

function blob(c: THREE.Vector3, r: Vec3, color: (dy: number) => Rgb): Part {
  return gridPart(
    16,
    10,
    (u, v) => {
      const th = (u - 0.5) * Math.PI * 2;
      const ph = v * Math.PI;
      const dy = Math.cos(ph);
      return {
        p: [c.x + Math.sin(ph) * Math.sin(th) * r[0], c.y + dy * r[1], c.z + Math.sin(ph) * Math.cos(th) * r[2]],
        c: color(dy),
      };
    },
    { wrapU: true },
  );
}

const TORSO: Array<[y: number, r: number]> = [
  [0.84, 0.1],
  [0.9, 0.132],
  [0.97, 0.14],
  [1.06, 0.133],
  [1.16, 0.13],
  [1.26, 0.145],
  [1.33, 0.165],
  [1.38, 0.168],
  [1.42, 0.14],
  [1.45, 0.09],
  [1.465, 0.055],
];

function torsoRadius(t: number): [number, number] {
  const f = t * (TORSO.length - 1);
  const i = Math.min(TORSO.length - 2, Math.floor(f));
  const k = f - i;
  const s = k * k * (3 - 2 * k);
  const [y0, r0] = TORSO[i]!;
  const [y1, r1] = TORSO[i + 1]!;
  return [y0 + (y1 - y0) * k, r0 + (r1 - r0) * s];
}

export function buildBody(rig: Rig): Part {
  const P = (n: string): THREE.Vector3 => rig.worldPos(n);
  const seg = (bone: string, to: string): Segment => ({ bone: rig.index(bone), a: P(bone), b: P(to) });
  const spineZ = P('Spine1').z;

  const torso = gridPart(
    36,
    30,
    (u, v) => {
      const a = u * Math.PI * 2;
      const [y, r] = torsoRadius(v);
      const hem = y > 0.935 && y < 0.975;
      const c =
        y < 0.94
          ? PALETTE.pants
          : hem
            ? PALETTE.sweaterDark
            : mixRgb(PALETTE.sweater, PALETTE.sweaterDark, 0.15 * Math.sin(a * 10) ** 2);
      return { p: [r * Math.sin(a), y, spineZ + 0.01 + r * 0.74 * Math.cos(a)], c };
    },
    { wrapU: true, flip: true },
  );
  const collar = gridPart(
    28,
    6,
    (u, v) => {
      const a = u * Math.PI * 2;
      const b = v * Math.PI * 2;
      const R = 0.064;
      const r = 0.011;
      const n = P('Neck');
      return {
        p: [
          n.x + (R + r * Math.cos(b)) * Math.sin(a),
          n.y - 0.012 + r * Math.sin(b),
          n.z + 0.004 + (R + r * Math.cos(b)) * Math.cos(a) * 0.9,
        ],
        c: PALETTE.collar,
      };
    },
    { wrapU: true },
  );
  const neck = tube(rig.world('Neck'), -0.04, 0.12, 0.054, 0.05, () => PALETTE.skin);
  const torsoPart = weightBySegments(mergeParts([torso, collar, neck]), [
    seg('Hips', 'Spine'),
    seg('Spine', 'Spine1'),
    seg('Spine1', 'Spine2'),
    seg('Spine2', 'Neck'),
    seg('Neck', 'Head'),
    seg('LeftShoulder', 'LeftArm'),
    seg('RightShoulder', 'RightArm'),
    seg('LeftUpLeg', 'LeftLeg'),
    seg('RightUpLeg', 'RightLeg'),
  ]);

  const limbs: Part[] = [];
  for (const s of ['Left', 'Right'] as const) {
    const cuff = (t: number): Rgb => (t > 0.86 ? PALETTE.collar : PALETTE.sweater);
    const arm = mergeParts([
      blob(P(`${s}Arm`), [0.046, 0.047, 0.045], () => PALETTE.sweater),
      tube(rig.world(`${s}Arm`), -0.02, 0.26, 0.047, 0.041, () => PALETTE.sweater),
      tube(rig.world(`${s}ForeArm`), -0.01, 0.22, 0.041, 0.035, cuff),
      transformPart(
        blob(new THREE.Vector3(0, 0.055, 0), [0.03, 0.058, 0.034], () => PALETTE.skin),
        rig.world(`${s}Hand`),
      ),
      blob(P(`${s}HandThumb2`), [0.014, 0.022, 0.014], () => PALETTE.skin),
    ]);
    limbs.push(
      weightBySegments(arm, [
        seg(`${s}Shoulder`, `${s}Arm`),
        seg(`${s}Arm`, `${s}ForeArm`),
        seg(`${s}ForeArm`, `${s}Hand`),
        seg(`${s}Hand`, `${s}HandMiddle1`),
        seg('Spine2', 'Neck'),
      ]),
    );
    const foot = P(`${s}Foot`);
    const toe = P(`${s}ToeBase`);
    const shoeC = new THREE.Vector3((foot.x + toe.x) / 2, 0.055, (foot.z + toe.z) / 2 + 0.01);
    const leg = mergeParts([
      tube(rig.world(`${s}UpLeg`), -0.02, 0.43, 0.074, 0.056, () => PALETTE.pants),
      tube(rig.world(`${s}Leg`), -0.02, 0.44, 0.056, 0.046, () => PALETTE.pants),
      blob(shoeC, [0.056, 0.06, 0.12], (dy) => (dy < -0.45 ? PALETTE.sole : PALETTE.shoe)),
    ]);
    limbs.push(
      weightBySegments(leg, [
        seg(`${s}UpLeg`, `${s}Leg`),
        seg(`${s}Leg`, `${s}Foot`),
        seg(`${s}Foot`, `${s}ToeBase`),
        seg('Hips', 'Spine'),
      ]),
    );
  }
  return mergeParts([torsoPart, ...limbs]);
}
