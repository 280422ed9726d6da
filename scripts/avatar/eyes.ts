/**
 * Big cartoon eyes: a white eyeball, an iris/pupil cap with two highlights, and skin-coloured upper and lower lids
 * (spherical shells slightly larger than the eyeball). Gaze morphs rotate the iris cap about the eyeball centre;
 * blink/wide/squint morphs slide the lid edges, so every eye blendshape moves real vertices.
 */
import { addMorph, gridPart, mergeParts, mixRgb, type Part, type Vec3 } from './part';
import { eyeCenter, FACE, PALETTE, smoothstep } from './head-shape';

const R = FACE.eyeRadius;
const IRIS_ANGLE = 0.56; // cone half-angle of the iris, radians
const PUPIL_ANGLE = 0.25;
const LOOK_SIDE = 0.38; // radians of iris rotation for a full eyeLookIn/Out
const LOOK_VERT = 0.3;

/** Lid edge polar angle (from the top) across the eye; `theta` 0 = front, ±π/2 = corners. */
function edge(front: number, theta: number): number {
  const k = Math.sqrt(Math.max(0, Math.cos(Math.min(Math.PI / 2, Math.abs(theta)))));
  return Math.PI / 2 + (front - Math.PI / 2) * k;
}

const UPPER_REST = 0.27 * Math.PI;
const LOWER_REST = 0.74 * Math.PI;

function sph(c: Vec3, r: number, phi: number, theta: number): Vec3 {
  return [c[0] + r * Math.sin(phi) * Math.sin(theta), c[1] + r * Math.cos(phi), c[2] + r * Math.sin(phi) * Math.cos(theta)];
}

function rotateAbout(c: Vec3, p: Vec3, ax: number, ay: number): Vec3 {
  // Rotate about X (ax) then Y (ay) around the eyeball centre.
  let x = p[0] - c[0];
  let y = p[1] - c[1];
  let z = p[2] - c[2];
  const y1 = y * Math.cos(ax) - z * Math.sin(ax);
  const z1 = y * Math.sin(ax) + z * Math.cos(ax);
  y = y1;
  z = z1;
  const x2 = x * Math.cos(ay) + z * Math.sin(ay);
  const z2 = -x * Math.sin(ay) + z * Math.cos(ay);
  x = x2;
  z = z2;
  return [c[0] + x, c[1] + y, c[2] + z];
}

/** A cap around the +Z axis of the eyeball, tilted by (tx, ty), of cone angle `angle`. */
function cap(c: Vec3, r: number, angle: number, tx: number, ty: number, color: (t: number, a: number) => Vec3): Part {
  return gridPart(
    32,
    8,
    (u, v) => {
      const a = u * Math.PI * 2;
      const b = v * angle;
      const local: Vec3 = [c[0] + r * Math.sin(b) * Math.cos(a), c[1] + r * Math.sin(b) * Math.sin(a), c[2] + r * Math.cos(b)];
      return { p: rotateAbout(c, local, tx, ty), c: color(v, a) };
    },
    { wrapU: true },
  );
}

function eyeball(side: 1 | -1): { ball: Part; lids: Part } {
  const c = eyeCenter(side);
  const sclera = gridPart(
    28,
    16,
    (u, v) => {
      const theta = (u - 0.5) * Math.PI * 2;
      const phi = v * Math.PI;
      // A faint shadow under the upper lid keeps the white from looking flat.
      const shade = smoothstep(0.25, 0.45, v) * 0.15;
      return { p: sph(c, R, phi, theta), c: mixRgb(PALETTE.irisDark, PALETTE.sclera, 0.85 + shade) };
    },
    { wrapU: true },
  );
  // Lifted 3.5 %: a morph interpolates rotation linearly (a chord), which sinks a half-turned iris by up to ~3 %
  // into the sclera; the lift keeps it on top at every influence.
  const iris = cap(c, R * 1.035, IRIS_ANGLE, 0, 0, (t, a) => {
    const b = t * IRIS_ANGLE;
    if (b < PUPIL_ANGLE) return PALETTE.pupil;
    const ring = smoothstep(IRIS_ANGLE * 0.82, IRIS_ANGLE, b);
    const top = (Math.sin(a) + 1) / 2; // darker at the top, lit from below as in cartoons
    return mixRgb(mixRgb(PALETTE.iris, PALETTE.irisDark, top * 0.6), PALETTE.irisDark, ring);
  });
  // Highlights sit at the same place in both eyes (one light, upper left of the viewer).
  const glint = cap(c, R * 1.04, 0.095, -0.27, -0.22, () => PALETTE.sclera);
  const glint2 = cap(c, R * 1.04, 0.045, 0.2, 0.14, () => PALETTE.sclera);
  const ball = mergeParts([sclera, iris, glint, glint2]);
  // Gaze: sclera vertices stay; only iris and highlights (everything after the sclera) rotate.
  const nSclera = sclera.positions.length / 3;
  const look = (name: string, ax: number, ay: number): void =>
    addMorph(ball, name, (p, i) => (i < nSclera ? p : rotateAbout(c, p, ax, ay)));
  const s = side === 1 ? 'Left' : 'Right';
  look(`eyeLookUp${s}`, -LOOK_VERT, 0);
  look(`eyeLookDown${s}`, LOOK_VERT, 0);
  look(`eyeLookOut${s}`, 0, LOOK_SIDE * side);
  look(`eyeLookIn${s}`, 0, -LOOK_SIDE * side);

  // Lids: grid u across the eye (theta), v from the skull side (t=0) to the lid edge (t=1).
  const span = 1.95;
  const upperR = R * 1.05;
  const lowerR = R * 1.042;
  const upper = gridPart(30, 8, (u, v) => {
    const theta = (u - 0.5) * 2 * span;
    const lash = smoothstep(0.72, 0.9, v) * (0.85 + 0.15 * Math.abs(Math.sin(theta)));
    return { p: sph(c, upperR, v * edge(UPPER_REST, theta), theta), c: mixRgb(PALETTE.skin, PALETTE.lash, lash) };
  });
  const lower = gridPart(30, 6, (u, v) => {
    const theta = (u - 0.5) * 2 * span;
    const e = edge(LOWER_REST, theta);
    const rim = smoothstep(0.75, 1, 1 - v) * 0.25;
    return { p: sph(c, lowerR, e + v * (Math.PI - e), theta), c: mixRgb(PALETTE.skin, PALETTE.blush, rim) };
  });
  const nu = 31;
  const moveUpper =
    (front: number) =>
    (_p: Vec3, i: number): Vec3 => {
      const u = (i % nu) / 30;
      const v = Math.floor(i / nu) / 8;
      const theta = (u - 0.5) * 2 * span;
      return sph(c, upperR, v * edge(front, theta), theta);
    };
  const moveLower =
    (front: number) =>
    (_p: Vec3, i: number): Vec3 => {
      const u = (i % nu) / 30;
      const v = Math.floor(i / nu) / 6;
      const theta = (u - 0.5) * 2 * span;
      const e = edge(front, theta);
      return sph(c, lowerR, e + v * (Math.PI - e), theta);
    };
  addMorph(upper, `eyeBlink${s}`, moveUpper(0.625 * Math.PI));
  addMorph(lower, `eyeBlink${s}`, moveLower(0.6 * Math.PI));
  addMorph(upper, `eyeWide${s}`, moveUpper(0.2 * Math.PI));
  addMorph(lower, `eyeWide${s}`, moveLower(0.78 * Math.PI));
  addMorph(upper, `eyeSquint${s}`, moveUpper(0.42 * Math.PI));
  addMorph(lower, `eyeSquint${s}`, moveLower(0.6 * Math.PI));
  // Lids follow vertical gaze a little, as real lids do.
  addMorph(upper, `eyeLookDown${s}`, moveUpper(0.44 * Math.PI));
  addMorph(upper, `eyeLookUp${s}`, moveUpper(0.26 * Math.PI));
  return { ball, lids: mergeParts([upper, lower]) };
}

export const EYE_MORPHS: readonly string[] = ['Left', 'Right'].flatMap((s) =>
  ['Blink', 'LookUp', 'LookDown', 'LookIn', 'LookOut', 'Wide', 'Squint'].map((m) => `eye${m}${s}`),
);

/** Both eyes: eyeballs (glossy material) and lids (skin material) as separate parts. */
export function buildEyes(): { balls: Part; lids: Part } {
  const l = eyeball(1);
  const r = eyeball(-1);
  return { balls: mergeParts([l.ball, r.ball]), lids: mergeParts([l.lids, r.lids]) };
}
