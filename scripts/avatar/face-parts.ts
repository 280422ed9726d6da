/**
 * Head skin (with cheek blush, ears and a button nose), eyebrows and hair — all in the Head bone's frame. The skin
 * carries the cheek/nose blendshapes and a chin drop for open-mouth shapes; the brows carry the brow blendshapes.
 */
import { addMorph, gridPart, mergeParts, mixRgb, type Part, type Vec3 } from './part';
import { FACE, HEAD, headPoint, onFace, PALETTE, smoothstep, surfaceZ } from './head-shape';

function gauss(d2: number, s: number): number {
  return Math.exp(-d2 / (2 * s * s));
}

function ellipsoid(c: Vec3, r: Vec3, color: (dy: number, dz: number) => Vec3, nu = 18, nv = 12): Part {
  return gridPart(
    nu,
    nv,
    (u, v) => {
      const th = (u - 0.5) * Math.PI * 2;
      const ph = v * Math.PI;
      const dx = Math.sin(ph) * Math.sin(th);
      const dy = Math.cos(ph);
      const dz = Math.sin(ph) * Math.cos(th);
      return { p: [c[0] + dx * r[0], c[1] + dy * r[1], c[2] + dz * r[2]], c: color(dy, dz) };
    },
    { wrapU: true },
  );
}

/** Jaw-driven morphs: how far the chin drops for each open shape (metres). */
const CHIN_DROP: Array<[string, number]> = [
  // Only the widest shapes move the chin: small ones read fine from the lips alone and each target costs ~25 KB.
  ['jawOpen', 0.014],
  ['viseme_aa', 0.011],
  ['viseme_O', 0.007],
  ['viseme_E', 0.005],
  ['viseme_kk', 0.004],
];

export const SKIN_MORPHS: readonly string[] = [
  'cheekPuff',
  'cheekSquintLeft',
  'cheekSquintRight',
  'noseSneerLeft',
  'noseSneerRight',
  ...CHIN_DROP.map(([n]) => n),
];

export function buildSkin(): Part {
  const cheeks: Vec3[] = [
    [0.62, -0.28, 0.73],
    [-0.62, -0.28, 0.73],
  ];
  const skull = gridPart(
    44,
    30,
    (u, v) => {
      const th = (u - 0.5) * Math.PI * 2;
      const ph = v * Math.PI;
      const d: Vec3 = [Math.sin(ph) * Math.sin(th), Math.cos(ph), Math.sin(ph) * Math.cos(th)];
      let blush = 0;
      for (const c of cheeks) blush = Math.max(blush, gauss((d[0] - c[0]) ** 2 + (d[1] - c[1]) ** 2 + (d[2] - c[2]) ** 2, 0.13));
      return { p: headPoint(d[0], d[1], d[2]), c: mixRgb(PALETTE.skin, PALETTE.blush, blush * 0.55) };
    },
    { wrapU: true },
  );

  const noseC = onFace(0, FACE.noseY, -0.004);
  const nose = ellipsoid(noseC, [0.017, 0.013, 0.015], (dy) => mixRgb(PALETTE.skin, PALETTE.blush, 0.25 - dy * 0.1));
  const earY = HEAD.center[1] - 0.012;
  const ear = (s: 1 | -1): Part =>
    ellipsoid([s * (HEAD.rx - 0.004), earY, HEAD.center[2] - 0.01], [0.02, 0.034, 0.026], (_dy, dz) =>
      mixRgb(PALETTE.skin, PALETTE.blush, 0.2 + Math.max(0, dz) * 0.25),
    );
  const nSkull = skull.positions.length / 3;
  const nNose = nose.positions.length / 3;
  const part = mergeParts([skull, nose, ear(1), ear(-1)]);
  const isNose = (i: number): boolean => i >= nSkull && i < nSkull + nNose;

  // Cheeks puff outwards and squint upwards, weighted around the blush spots.
  const cheekW = (p: Vec3, side: number): number =>
    gauss((p[0] - side * 0.072) ** 2 + (p[1] - (FACE.mouthY + 0.016)) ** 2, 0.024) * smoothstep(0.0, 0.06, p[2] - HEAD.center[2]);
  addMorph(part, 'cheekPuff', (p, i) => {
    if (isNose(i)) return p;
    const w = Math.max(cheekW(p, 1), cheekW(p, -1));
    return [p[0] * (1 + 0.12 * w), p[1], p[2] + 0.01 * w];
  });
  for (const [name, side] of [
    ['cheekSquintLeft', 1],
    ['cheekSquintRight', -1],
  ] as const) {
    addMorph(part, name, (p, i) => (isNose(i) ? p : [p[0], p[1] + 0.007 * cheekW(p, side), p[2] + 0.002 * cheekW(p, side)]));
  }
  for (const [name, side] of [
    ['noseSneerLeft', 1],
    ['noseSneerRight', -1],
  ] as const) {
    addMorph(part, name, (p, i) => {
      if (!isNose(i)) return p;
      const w = smoothstep(-0.01, 0.015, (p[0] - noseC[0]) * side);
      return [p[0], p[1] + 0.004 * w, p[2] - 0.001 * w];
    });
  }
  // Chin drop: skin below the mouth line moves down, fading out towards the cheeks and the neck.
  for (const [name, drop] of CHIN_DROP) {
    addMorph(part, name, (p, i) => {
      if (isNose(i)) return p;
      const below = smoothstep(FACE.mouthY + 0.005, FACE.mouthY - 0.03, p[1]);
      const front = smoothstep(HEAD.center[2] - 0.02, HEAD.center[2] + 0.08, p[2]);
      const mid = gauss(p[0] * p[0], 0.05);
      return [p[0], p[1] - drop * below * front * mid, p[2] - drop * 0.2 * below * front * mid];
    });
  }
  return part;
}

export const BROW_MORPHS: readonly string[] = [
  'browDownLeft',
  'browDownRight',
  'browInnerUp',
  'browOuterUpLeft',
  'browOuterUpRight',
];

/** Soft, arched eyebrows: a tapered strip lifted just above the skin. */
export function buildBrows(): Part {
  const brows: Part[] = [];
  const NU = 16;
  const NV = 3;
  for (const side of [1, -1] as const) {
    const at = (u: number, v: number, lift = 0, inner = 0, outer = 0, down = 0): Vec3 => {
      const x = side * (0.02 + u * 0.056 - down * 0.004 * (1 - u));
      const arch = Math.sin(u * Math.PI * 0.9) * 0.008;
      const thick = 0.0085 * (1 - 0.55 * u) * (0.6 + 0.4 * Math.sin(Math.PI * Math.min(1, u + 0.15)));
      const y =
        FACE.browY - 0.004 * u + arch + (v - 0.5) * thick + inner * 0.011 * (1 - u) + outer * 0.01 * u - down * 0.007 + lift;
      return [x, y, surfaceZ(x, y, 0.0025 + 0.0015 * Math.sin(Math.PI * v))];
    };
    const part = gridPart(NU, NV, (u, v) => ({ p: at(u, v), c: mixRgb(PALETTE.brow, PALETTE.hair, v * 0.3) }), {
      flip: side === 1,
    });
    const uv = (i: number): [number, number] => [(i % (NU + 1)) / NU, Math.floor(i / (NU + 1)) / NV];
    const s = side === 1 ? 'Left' : 'Right';
    addMorph(part, 'browInnerUp', (_p, i) => at(...uv(i), 0, 1));
    addMorph(part, `browOuterUp${s}`, (_p, i) => at(...uv(i), 0, 0, 1));
    addMorph(part, `browDown${s}`, (_p, i) => at(...uv(i), 0, 0, 0, 1));
    brows.push(part);
  }
  return mergeParts(brows);
}

/**
 * Hair: a bumpy shell over the skull whose hairline is low and wavy at the front (a soft fringe), rising over the
 * ears and dropping at the nape, parted to one side.
 */
export function buildHair(): Part {
  const shell = gridPart(
    56,
    22,
    (u, v) => {
      const th = (u - 0.5) * Math.PI * 2;
      const front = (1 + Math.cos(th)) / 2; // 1 at the face, 0 at the back
      const side = Math.abs(Math.sin(th));
      // A side-swept fringe: lower over the character's right brow, with soft scallops.
      const fringe = (0.03 * Math.abs(Math.sin(th * 5)) + 0.05 * smoothstep(0.4, -0.6, th)) * front;
      const edge = Math.PI * (0.27 + 0.3 * (1 - front) + 0.11 * side * front) + fringe;
      const ph = v * edge;
      const d: Vec3 = [Math.sin(ph) * Math.sin(th), Math.cos(ph), Math.sin(ph) * Math.cos(th)];
      const bump = 0.005 * Math.sin(th * 4 + 1.3) * Math.sin(ph * 3) * smoothstep(0.05, 0.3, v);
      const inflate = 0.011 + bump - 0.006 * smoothstep(0.85, 1, v); // edges tuck in towards the skin
      const p = headPoint(d[0], d[1], d[2], inflate);
      return { p, c: mixRgb(PALETTE.hairLight, PALETTE.hair, 0.4 + 0.6 * v) };
    },
    { wrapU: true },
  );
  return mergeParts([shell]);
}
