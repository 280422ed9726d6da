/**
 * The head's shape and face layout, in the Head bone's local frame (metres; +Y up, +Z forward, +X = the character's
 * left). Face features are drawn on the head surface, so everything projects onto it through `surfaceZ`.
 */
import type { Rgb, Vec3 } from './part';
import { hex } from './part';

export const HEAD = {
  center: [0, 0.098, 0.018] as Vec3,
  rx: 0.122,
  ryUp: 0.136,
  ryDown: 0.128,
  rz: 0.124,
  /** Lower face narrows towards a soft chin. */
  jawNarrow: 0.16,
};

export const FACE = {
  eyeX: 0.049,
  eyeY: 0.084,
  eyeRadius: 0.031,
  /** How deep the eyeball sits under the skin. */
  eyeSink: 0.015,
  mouthY: 0.022,
  noseY: 0.052,
  browY: 0.132,
};

export const PALETTE = {
  skin: hex(0xefb894),
  blush: hex(0xf0877f),
  lip: hex(0xc95e6a),
  mouthDark: hex(0x5b1e2b),
  teeth: hex(0xfbf7f2),
  tongue: hex(0xe0707a),
  hair: hex(0x583222),
  hairLight: hex(0x80492e),
  brow: hex(0x4a2e24),
  lash: hex(0x2e1f1c),
  sclera: hex(0xfbfbf8),
  iris: hex(0x2f9c8c),
  irisDark: hex(0x1f5c55),
  pupil: hex(0x111417),
  sweater: hex(0xe9705a),
  sweaterDark: hex(0xc85a48),
  collar: hex(0xfff3df),
  pants: hex(0x3f4d72),
  shoe: hex(0xf7f4ee),
  sole: hex(0x8a6e5e),
} satisfies Record<string, Rgb>;

function jaw(dy: number): number {
  // Narrow only below the equator: cheeks stay round, the chin gets softer and slimmer.
  return dy < 0 ? 1 - HEAD.jawNarrow * dy * dy : 1;
}

/** Point on the head surface for a unit direction (dx, dy, dz). */
export function headPoint(dx: number, dy: number, dz: number, inflate = 0): Vec3 {
  const ry = dy >= 0 ? HEAD.ryUp : HEAD.ryDown;
  const [cx, cy, cz] = HEAD.center;
  return [cx + dx * (HEAD.rx + inflate) * jaw(dy), cy + dy * (ry + inflate), cz + dz * (HEAD.rz + inflate)];
}

/** Front surface depth at (x, y) plus `offset` along +Z (offset keeps decals just above the skin). */
export function surfaceZ(x: number, y: number, offset = 0): number {
  const [, cy, cz] = HEAD.center;
  const ry = y >= cy ? HEAD.ryUp : HEAD.ryDown;
  const dy = (y - cy) / ry;
  const dx = x / (HEAD.rx * jaw(dy));
  const s = 1 - dx * dx - dy * dy;
  return cz + HEAD.rz * Math.sqrt(Math.max(0, s)) + offset;
}

/** A face-plane point (x, y) lifted onto the skin, `lift` metres in front of it. */
export function onFace(x: number, y: number, lift: number): Vec3 {
  return [x, y, surfaceZ(x, y, lift)];
}

export function eyeCenter(side: 1 | -1): Vec3 {
  const x = FACE.eyeX * side;
  return [x, FACE.eyeY, surfaceZ(x, FACE.eyeY) - FACE.eyeSink];
}

export function smoothstep(a: number, b: number, x: number): number {
  const t = Math.min(1, Math.max(0, (x - a) / (b - a)));
  return t * t * (3 - 2 * t);
}
