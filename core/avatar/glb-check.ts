/**
 * A small GLB reader and validator for avatars (no three.js, no DOM): parses the container, the JSON chunk and, on
 * request, float accessors from the BIN chunk. `validateAvatarGlb` tells a user in plain words why a GLB cannot drive
 * TalkingHead (wrong file, truncated, missing bones or morph targets, too big) before TalkingHead throws obscure errors.
 */
import { CRASH_CRITICAL_MORPHS, MODEL_ROOT, REQUIRED_BONES } from './required-names';

const GLB_MAGIC = 0x46546c67; // 'glTF'
const CHUNK_JSON = 0x4e4f534a; // 'JSON'
const CHUNK_BIN = 0x004e4942; // 'BIN\0'

/** Default cap for user avatars; TalkingHead's sample avatars are 2–4 MiB, big rigs stall the side panel. */
export const MAX_AVATAR_BYTES = 30 * 1024 * 1024;

export interface GltfAccessor {
  bufferView?: number;
  byteOffset?: number;
  componentType: number;
  count: number;
  type: string;
  sparse?: unknown;
}
export interface GltfPrimitive {
  attributes: Record<string, number>;
  targets?: Array<Record<string, number>>;
}
export interface GltfJson {
  asset?: { version?: string };
  nodes?: Array<{ name?: string; mesh?: number; skin?: number; children?: number[] }>;
  meshes?: Array<{ name?: string; primitives: GltfPrimitive[]; extras?: { targetNames?: unknown } }>;
  skins?: Array<{ joints: number[] }>;
  accessors?: GltfAccessor[];
  bufferViews?: Array<{ buffer: number; byteOffset?: number; byteLength: number; byteStride?: number }>;
  extensionsRequired?: string[];
  buffers?: Array<{ uri?: string; byteLength?: number }>;
  images?: Array<{ uri?: string; bufferView?: number; mimeType?: string }>;
}

export interface ParsedGlb {
  json: GltfJson;
  bin: Uint8Array | null;
}

export class GlbError extends Error {
  override name = 'GlbError';
}

// The JSON chunk comes from the user's file: every field may have any JSON type, so readers check before use.
const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const asArray = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);

function view(data: ArrayBuffer | Uint8Array): Uint8Array {
  return data instanceof Uint8Array ? data : new Uint8Array(data);
}

/** Parses the GLB container (header, JSON chunk, optional BIN chunk). Throws GlbError with a readable reason. */
export function parseGlb(data: ArrayBuffer | Uint8Array): ParsedGlb {
  const bytes = view(data);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 20) throw new GlbError(`Not a GLB file: only ${bytes.byteLength} bytes.`);
  if (dv.getUint32(0, true) !== GLB_MAGIC) {
    throw new GlbError('Not a GLB file: it does not start with "glTF" (is it a .gltf text file, FBX or VRM?).');
  }
  const version = dv.getUint32(4, true);
  if (version !== 2) throw new GlbError(`Unsupported GLB version ${version}; glTF 2.0 is required.`);
  const declared = dv.getUint32(8, true);
  if (declared > bytes.byteLength) {
    throw new GlbError(`The GLB file is truncated: header says ${declared} bytes, got ${bytes.byteLength}.`);
  }
  let offset = 12;
  let json: GltfJson | null = null;
  let bin: Uint8Array | null = null;
  while (offset + 8 <= declared) {
    const len = dv.getUint32(offset, true);
    const type = dv.getUint32(offset + 4, true);
    const start = offset + 8;
    if (start + len > declared) throw new GlbError('The GLB file is truncated: a chunk runs past the end of the file.');
    const chunk = bytes.subarray(start, start + len);
    if (type === CHUNK_JSON && !json) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(new TextDecoder().decode(chunk));
      } catch {
        throw new GlbError('The GLB JSON chunk is not valid JSON (file damaged?).');
      }
      if (!isRecord(parsed)) throw new GlbError('The GLB JSON chunk is not a glTF object (file damaged?).');
      json = parsed as GltfJson;
    } else if (type === CHUNK_BIN && !bin) {
      bin = chunk;
    }
    offset = start + len + ((4 - (len % 4)) % 4);
  }
  if (!json) throw new GlbError('The GLB file has no JSON chunk.');
  return { json, bin };
}

/** Names of all nodes. */
export function nodeNames(json: GltfJson): Set<string> {
  return new Set(
    asArray(json.nodes)
      .map((n) => (isRecord(n) ? n.name : undefined))
      .filter((n): n is string => typeof n === 'string'),
  );
}

/** Morph target names per mesh (from `extras.targetNames`, the convention three.js and Blender use). */
export function morphNamesByMesh(json: GltfJson): Map<string, string[]> {
  const out = new Map<string, string[]>();
  asArray(json.meshes).forEach((m, i) => {
    const mesh = isRecord(m) ? m : {};
    const extras = isRecord(mesh.extras) ? mesh.extras : {};
    const names = asArray(extras.targetNames).filter((n): n is string => typeof n === 'string');
    out.set(typeof mesh.name === 'string' ? mesh.name : `mesh${i}`, names);
  });
  return out;
}

export function allMorphNames(json: GltfJson): Set<string> {
  const s = new Set<string>();
  for (const names of morphNamesByMesh(json).values()) for (const n of names) s.add(n);
  return s;
}

/** Reads a FLOAT accessor (dense, tightly packed or strided) as a Float32Array copy. */
export function readFloatAccessor(glb: ParsedGlb, index: number): Float32Array {
  const acc = glb.json.accessors?.[index];
  if (!acc) throw new GlbError(`accessor ${index} missing`);
  if (acc.componentType !== 5126) throw new GlbError(`accessor ${index} is not FLOAT`);
  const comps = ({ SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 } as Record<string, number>)[acc.type] ?? 0;
  const out = new Float32Array(acc.count * comps);
  if (acc.bufferView === undefined) return out; // all zeros (or sparse-only), per the glTF spec
  const bv = glb.json.bufferViews?.[acc.bufferView];
  if (!bv || !glb.bin) throw new GlbError(`accessor ${index}: buffer view or BIN chunk missing`);
  const base = (bv.byteOffset ?? 0) + (acc.byteOffset ?? 0);
  const stride = bv.byteStride ?? comps * 4;
  const dv = new DataView(glb.bin.buffer, glb.bin.byteOffset, glb.bin.byteLength);
  if (base + stride * (acc.count - 1) + comps * 4 > glb.bin.byteLength) throw new GlbError(`accessor ${index} runs past BIN`);
  for (let i = 0; i < acc.count; i++)
    for (let c = 0; c < comps; c++) out[i * comps + c] = dv.getFloat32(base + i * stride + c * 4, true);
  return out;
}

/** Largest vertex displacement (metres) a named morph target causes, over all meshes that have it. */
export function maxMorphDisplacement(glb: ParsedGlb, morph: string): number {
  let best = 0;
  for (const mesh of glb.json.meshes ?? []) {
    const names = Array.isArray(mesh.extras?.targetNames) ? (mesh.extras.targetNames as unknown[]) : [];
    const t = names.indexOf(morph);
    if (t < 0) continue;
    for (const prim of mesh.primitives) {
      const acc = prim.targets?.[t]?.POSITION;
      if (acc === undefined) continue;
      const d = readFloatAccessor(glb, acc);
      for (let i = 0; i < d.length; i += 3) best = Math.max(best, Math.hypot(d[i]!, d[i + 1]!, d[i + 2]!));
    }
  }
  return best;
}

/**
 * The buffer and image URIs that name something outside the file (anything but a `data:` URI). Loading such a GLB
 * would make the side panel fetch those addresses: a file, a web host, a tracking pixel. Sidetalk loads only
 * self-contained avatars (docs/avatar.md).
 */
export function externalUris(json: GltfJson): string[] {
  const uris = [...asArray(json.buffers), ...asArray(json.images)]
    .map((entry) => (isRecord(entry) ? entry.uri : undefined))
    .filter((uri): uri is unknown => uri !== undefined);
  return uris.filter((uri) => typeof uri !== 'string' || !/^\s*data:/i.test(uri)).map((uri) => String(uri));
}

export interface AvatarCheck {
  ok: boolean;
  errors: string[];
  warnings: string[];
  morphs: Set<string>;
}

/**
 * Checks that a GLB can drive TalkingHead 1.7.0: size, container, Armature root, the 52 pose bones + eye bones, at
 * least one mesh with morph targets and the crash-critical morph names. Missing visemes are a warning (lips stay
 * still), missing crash-critical names an error.
 */
export function validateAvatarGlb(data: ArrayBuffer | Uint8Array, maxBytes = MAX_AVATAR_BYTES): AvatarCheck {
  const errors: string[] = [];
  const warnings: string[] = [];
  const size = view(data).byteLength;
  if (size > maxBytes) {
    const mb = (n: number): string => (n / 1024 / 1024).toFixed(1);
    return { ok: false, errors: [`The avatar is ${mb(size)} MB; the limit is ${mb(maxBytes)} MB.`], warnings, morphs: new Set() };
  }
  let glb: ParsedGlb;
  try {
    glb = parseGlb(data);
  } catch (e) {
    return { ok: false, errors: [e instanceof Error ? e.message : String(e)], warnings, morphs: new Set() };
  }
  const { json } = glb;
  const external = externalUris(json);
  if (external.length) {
    const shown = external
      .slice(0, 3)
      .map((u) => `"${u.length > 60 ? `${u.slice(0, 57)}…` : u}"`)
      .join(', ');
    errors.push(
      `The avatar refers to ${external.length} file(s) outside itself (${shown}${external.length > 3 ? ', …' : ''}): ` +
        'only a self-contained GLB can be used. Export it as one .glb with the textures embedded.',
    );
  }
  const names = nodeNames(json);
  if (!names.has(MODEL_ROOT))
    errors.push(`No "${MODEL_ROOT}" root object: TalkingHead 1.7.0 needs the rig under a node named "${MODEL_ROOT}".`);
  const missingBones = REQUIRED_BONES.filter((b) => !names.has(b));
  if (missingBones.length) {
    const mixamo = missingBones.some((b) => names.has(`mixamorig:${b}`) || names.has(`mixamorig${b}`));
    errors.push(
      `Missing ${missingBones.length} required bone(s): ${missingBones.slice(0, 8).join(', ')}${missingBones.length > 8 ? ', …' : ''}.` +
        (mixamo ? ' The rig uses "mixamorig" prefixes; rename the bones without the prefix.' : ''),
    );
  }
  const morphs = allMorphNames(json);
  if (morphs.size === 0) errors.push('No morph targets (blend shapes) found: the face cannot move.');
  else {
    const missing = CRASH_CRITICAL_MORPHS.filter((m) => !morphs.has(m));
    if (missing.length)
      errors.push(
        `Missing ${missing.length} required morph target(s): ${missing.slice(0, 8).join(', ')}${missing.length > 8 ? ', …' : ''}.`,
      );
    if (![...morphs].some((m) => m.startsWith('viseme_')))
      warnings.push('No viseme_* morph targets: lip-sync will not move the mouth.');
  }
  const unsupported = asArray(json.extensionsRequired).filter(
    (e) => e === 'KHR_draco_mesh_compression' || e === 'EXT_meshopt_compression',
  );
  if (unsupported.length) errors.push(`Compressed GLB (${unsupported.join(', ')}) is not supported; export it uncompressed.`);
  return { ok: errors.length === 0, errors, warnings, morphs };
}
