/**
 * A tiny mesh-building kit for the generated avatar. A `Part` is plain arrays (positions, colours, triangles, per-vertex
 * bone weights and named morph deltas) so parts can be authored in a bone's local frame, moved to world space and
 * merged into one skinned mesh per material/feature without three.js bookkeeping.
 */
import * as THREE from 'three';

export type Vec3 = [number, number, number];
export type Rgb = [number, number, number];

/** Up to 4 bone influences per vertex, as in glTF JOINTS_0/WEIGHTS_0. */
export type Influence = Array<[boneIndex: number, weight: number]>;

export interface Part {
  positions: number[];
  colors: number[];
  indices: number[];
  influences: Influence[];
  /** Morph name → deltas (3 per vertex). Missing names mean zero deltas for this part. */
  morphs: Map<string, Float32Array>;
}

export function emptyPart(): Part {
  return { positions: [], colors: [], indices: [], influences: [], morphs: new Map() };
}

export function vertexCount(p: Part): number {
  return p.positions.length / 3;
}

export function hex(c: number): Rgb {
  // glTF vertex colours are linear; authoring in sRGB hex keeps the palette readable.
  const col = new THREE.Color().setHex(c, THREE.SRGBColorSpace);
  return [col.r, col.g, col.b];
}

export function mixRgb(a: Rgb, b: Rgb, t: number): Rgb {
  const k = Math.min(1, Math.max(0, t));
  return [a[0] + (b[0] - a[0]) * k, a[1] + (b[1] - a[1]) * k, a[2] + (b[2] - a[2]) * k];
}

/**
 * A (nu+1)×(nv+1) vertex grid surface. `at(u, v)` with u, v in [0, 1] returns the point and its colour; `wrapU`
 * closes the seam so lathe-like shapes get no crack.
 */
export function gridPart(
  nu: number,
  nv: number,
  at: (u: number, v: number) => { p: Vec3; c: Rgb },
  opts: { wrapU?: boolean; flip?: boolean } = {},
): Part {
  const part = emptyPart();
  const cols = opts.wrapU ? nu : nu + 1;
  for (let j = 0; j <= nv; j++) {
    for (let i = 0; i < cols; i++) {
      const { p, c } = at(i / nu, j / nv);
      part.positions.push(...p);
      part.colors.push(...c);
    }
  }
  for (let j = 0; j < nv; j++) {
    for (let i = 0; i < nu; i++) {
      const i1 = opts.wrapU ? (i + 1) % cols : i + 1;
      const a = j * cols + i;
      const b = j * cols + i1;
      const c = (j + 1) * cols + i;
      const d = (j + 1) * cols + i1;
      if (opts.flip) part.indices.push(a, b, c, b, d, c);
      else part.indices.push(a, c, b, b, c, d);
    }
  }
  return part;
}

/** Rigidly binds every vertex of a part to one bone. */
export function bindRigid(part: Part, bone: number): Part {
  part.influences = Array.from({ length: vertexCount(part) }, () => [[bone, 1]] as Influence);
  return part;
}

/** Adds a morph computed per vertex from the rest position; `fn` returns the moved position. */
export function addMorph(part: Part, name: string, fn: (p: Vec3, index: number) => Vec3): void {
  const n = vertexCount(part);
  const d = part.morphs.get(name) ?? new Float32Array(n * 3);
  for (let i = 0; i < n; i++) {
    const p: Vec3 = [part.positions[i * 3]!, part.positions[i * 3 + 1]!, part.positions[i * 3 + 2]!];
    const q = fn(p, i);
    d[i * 3] = d[i * 3]! + q[0] - p[0];
    d[i * 3 + 1] = d[i * 3 + 1]! + q[1] - p[1];
    d[i * 3 + 2] = d[i * 3 + 2]! + q[2] - p[2];
  }
  part.morphs.set(name, d);
}

/** Moves a part (authored in a bone's local frame) to world space; morph deltas rotate with it. */
export function transformPart(part: Part, m: THREE.Matrix4): Part {
  const v = new THREE.Vector3();
  const rot = new THREE.Matrix3().setFromMatrix4(m);
  for (let i = 0; i < part.positions.length; i += 3) {
    v.set(part.positions[i]!, part.positions[i + 1]!, part.positions[i + 2]!).applyMatrix4(m);
    part.positions[i] = v.x;
    part.positions[i + 1] = v.y;
    part.positions[i + 2] = v.z;
  }
  for (const d of part.morphs.values()) {
    for (let i = 0; i < d.length; i += 3) {
      v.set(d[i]!, d[i + 1]!, d[i + 2]!).applyMatrix3(rot);
      d[i] = v.x;
      d[i + 1] = v.y;
      d[i + 2] = v.z;
    }
  }
  return part;
}

export function mergeParts(parts: Part[]): Part {
  const out = emptyPart();
  const names = new Set<string>();
  for (const p of parts) for (const k of p.morphs.keys()) names.add(k);
  const total = parts.reduce((s, p) => s + vertexCount(p), 0);
  for (const k of names) out.morphs.set(k, new Float32Array(total * 3));
  let base = 0;
  for (const p of parts) {
    out.positions.push(...p.positions);
    out.colors.push(...p.colors);
    out.influences.push(...p.influences);
    for (const i of p.indices) out.indices.push(i + base);
    for (const [k, d] of p.morphs) out.morphs.get(k)!.set(d, base * 3);
    base += vertexCount(p);
  }
  return out;
}

/**
 * Builds the three.js skinned mesh. `morphOrder` fixes the morph target order (and adds zero targets for names
 * the part lacks, so a feature mesh can carry names it does not move).
 */
export function toSkinnedMesh(
  name: string,
  part: Part,
  material: THREE.Material,
  skeleton: THREE.Skeleton,
  morphOrder: readonly string[] = [],
): THREE.SkinnedMesh {
  const g = new THREE.BufferGeometry();
  const n = vertexCount(part);
  g.setAttribute('position', new THREE.Float32BufferAttribute(part.positions, 3));
  g.setAttribute('color', new THREE.Float32BufferAttribute(part.colors, 3));
  g.setIndex(part.indices);
  g.computeVertexNormals();
  const si = new Uint16Array(n * 4);
  const sw = new Float32Array(n * 4);
  part.influences.forEach((inf, i) => {
    const top = [...inf].sort((a, b) => b[1] - a[1]).slice(0, 4);
    const sum = top.reduce((s, [, w]) => s + w, 0) || 1;
    top.forEach(([b, w], k) => {
      si[i * 4 + k] = b;
      sw[i * 4 + k] = w / sum;
    });
  });
  g.setAttribute('skinIndex', new THREE.Uint16BufferAttribute(si, 4));
  g.setAttribute('skinWeight', new THREE.Float32BufferAttribute(sw, 4));
  if (morphOrder.length) {
    g.morphAttributes.position = morphOrder.map((m) => {
      const attr = new THREE.Float32BufferAttribute(part.morphs.get(m) ?? new Float32Array(n * 3), 3);
      attr.name = m;
      return attr;
    });
    g.morphTargetsRelative = true;
  }
  const mesh = new THREE.SkinnedMesh(g, material);
  mesh.name = name;
  if (morphOrder.length) mesh.updateMorphTargets();
  mesh.bind(skeleton, new THREE.Matrix4());
  return mesh;
}
