/**
 * The cartoon mouth: an elliptical disc drawn on the skin (lip rim, dark inside, upper teeth, tongue). At rest it is
 * a closed, slightly smiling line; every viseme and mouth blendshape is the disc re-shaped by a few intuitive
 * parameters (half-width, upper/lower opening, corner curve, roundness, pucker), then projected back onto the head, so
 * the morph deltas are real lip motion.
 */
import { addMorph, gridPart, mixRgb, type Part, type Rgb, type Vec3 } from './part';
import { FACE, onFace, PALETTE, smoothstep } from './head-shape';

interface Shape {
  /** Half-width of the mouth. */
  w: number;
  /** Opening above / below the lip line. */
  up: number;
  down: number;
  /** Corner lift (positive = smile). */
  curve: number;
  /** 0 = ellipse, 1 = circle of radius `w` (O/U shapes). */
  round: number;
  /** Lips pushed forward. */
  pucker: number;
  /** Sideways / vertical shift of the whole mouth. */
  dx: number;
  dy: number;
}

const REST: Shape = { w: 0.029, up: 0.0012, down: 0.0014, curve: 0.0045, round: 0, pucker: 0, dx: 0, dy: 0 };

type Tweak = Partial<Shape>;

/** Each target as a change from REST; `side` limits it to the character's left (+1) or right (-1) half. */
const TARGETS: Array<[name: string, tweak: Tweak, side?: 1 | -1]> = [
  ['viseme_aa', { up: 0.0087, down: 0.029, w: -0.001 }],
  ['viseme_E', { up: 0.0058, down: 0.013, w: 0.005, curve: 0.002 }],
  ['viseme_I', { up: 0.0043, down: 0.0072, w: 0.007, curve: 0.003 }],
  ['viseme_O', { up: 0.0116, down: 0.0188, w: -0.012, round: 0.8, pucker: 0.005, curve: -0.004 }],
  ['viseme_U', { up: 0.0058, down: 0.0087, w: -0.017, round: 0.9, pucker: 0.009, curve: -0.004 }],
  ['viseme_PP', { up: -0.0012, down: -0.0014, w: -0.002, curve: -0.002, pucker: 0.002 }],
  ['viseme_FF', { up: 0.0058, down: -0.0012, w: -0.002, dy: 0.001, curve: -0.001 }],
  ['viseme_TH', { up: 0.0043, down: 0.0087, w: -0.001 }],
  ['viseme_DD', { up: 0.0043, down: 0.0101 }],
  ['viseme_kk', { up: 0.0043, down: 0.013, w: 0.002 }],
  ['viseme_CH', { up: 0.0087, down: 0.0101, w: -0.007, round: 0.3, pucker: 0.005 }],
  ['viseme_SS', { up: 0.0025, down: 0.0043, w: 0.004, curve: 0.001 }],
  ['viseme_nn', { up: 0.002, down: 0.0087 }],
  ['viseme_RR', { up: 0.0058, down: 0.0101, w: -0.009, round: 0.4, pucker: 0.004 }],
  ['jawOpen', { up: 0.0058, down: 0.0348, w: -0.003 }],
  ['mouthClose', { down: -0.012, up: -0.002 }],
  ['mouthFunnel', { up: 0.0087, down: 0.0116, w: -0.011, round: 0.8, pucker: 0.006 }],
  ['mouthPucker', { w: -0.015, round: 0.6, pucker: 0.01, curve: -0.003 }],
  ['mouthLeft', { dx: 0.008 }],
  ['mouthRight', { dx: -0.008 }],
  ['mouthSmileLeft', { curve: 0.01, w: 0.004 }, 1],
  ['mouthSmileRight', { curve: 0.01, w: 0.004 }, -1],
  ['mouthFrownLeft', { curve: -0.011 }, 1],
  ['mouthFrownRight', { curve: -0.011 }, -1],
  ['mouthDimpleLeft', { w: 0.003, curve: 0.002 }, 1],
  ['mouthDimpleRight', { w: 0.003, curve: 0.002 }, -1],
  ['mouthStretchLeft', { w: 0.005, down: 0.002, curve: -0.002 }, 1],
  ['mouthStretchRight', { w: 0.005, down: 0.002, curve: -0.002 }, -1],
  ['mouthRollLower', { down: -0.0012, pucker: -0.002 }],
  ['mouthRollUpper', { up: -0.0011, pucker: -0.002 }],
  ['mouthShrugLower', { dy: 0.002, down: -0.001 }],
  ['mouthShrugUpper', { dy: 0.0015, up: 0.001 }],
  ['mouthPressLeft', { up: -0.001, down: -0.001, w: 0.002 }, 1],
  ['mouthPressRight', { up: -0.001, down: -0.001, w: 0.002 }, -1],
  ['mouthLowerDownLeft', { down: 0.0101 }, 1],
  ['mouthLowerDownRight', { down: 0.0101 }, -1],
  ['mouthUpperUpLeft', { up: 0.0087 }, 1],
  ['mouthUpperUpRight', { up: 0.0087 }, -1],
  ['tongueOut', { down: 0.0145, up: 0.002 }],
  ['jawForward', { pucker: 0.003, dy: -0.001 }],
  ['jawLeft', { dx: 0.004 }],
  ['jawRight', { dx: -0.004 }],
];

export const MOUTH_MORPHS: readonly string[] = TARGETS.map(([n]) => n).concat('viseme_sil');

const NA = 48; // around the rim
const NR = 10; // centre → rim

/** Disc point for polar grid coords (a: angle, r: 0..1) under a shape. */
function shapePoint(s: Shape, a: number, r: number): Vec3 {
  const c = Math.cos(a);
  const sn = Math.sin(a);
  const open = sn >= 0 ? s.up : s.down;
  let x = s.w * r * c;
  let y = open * r * sn;
  // Roundness pulls the ellipse toward a circle with the average opening.
  const circle = (s.up + s.down) / 2 + s.w * 0.25;
  x = x * (1 - s.round) + circle * r * c * s.round;
  y = y * (1 - s.round * 0.5) + circle * r * sn * s.round * 0.5;
  const xn = Math.min(1, Math.abs(x) / Math.max(1e-4, s.w));
  y += s.curve * xn * xn - s.curve * 0.3; // corners up, centre slightly down
  const lift = 0.0016 + s.pucker * (1 - 0.5 * xn * xn);
  return onFace(x + s.dx, FACE.mouthY + y + s.dy, lift);
}

function colorAt(a: number, r: number): Rgb {
  const sn = Math.sin(a);
  if (r > 0.8) return mixRgb(PALETTE.lip, PALETTE.mouthDark, (1 - r) * 0.6);
  if (sn > 0.25 && r > 0.48) return PALETTE.teeth;
  if (sn < -0.2 && r > 0.25) return mixRgb(PALETTE.tongue, PALETTE.mouthDark, 0.35 - sn * 0.2);
  return PALETTE.mouthDark;
}

function blend(side: 1 | -1 | undefined, x: number): number {
  if (!side) return 1;
  // Half the mouth moves, with a soft hand-over across the middle.
  return smoothstep(-0.35, 0.35, (x / REST.w) * side);
}

export function buildMouth(): Part {
  const part = gridPart(
    NA,
    NR,
    (u, v) => {
      const a = u * Math.PI * 2;
      const r = 1 - v;
      return { p: shapePoint(REST, a, r), c: colorAt(a, r) };
    },
    { wrapU: true, flip: true },
  );
  const coords: Array<[number, number]> = [];
  for (let j = 0; j <= NR; j++) for (let i = 0; i < NA; i++) coords.push([(i / NA) * Math.PI * 2, 1 - j / NR]);
  for (const [name, tweak, side] of TARGETS) {
    const target: Shape = { ...REST };
    for (const k of Object.keys(tweak) as Array<keyof Shape>) target[k] = REST[k] + (tweak[k] ?? 0);
    addMorph(part, name, (p, i) => {
      const [a, r] = coords[i]!;
      const q = shapePoint(target, a, r);
      const k = blend(side, p[0]);
      return [p[0] + (q[0] - p[0]) * k, p[1] + (q[1] - p[1]) * k, p[2] + (q[2] - p[2]) * k];
    });
  }
  return part;
}
