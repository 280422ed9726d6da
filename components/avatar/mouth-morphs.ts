/**
 * The mouth as TalkingHead renders it: which morphs count as an open mouth, how open the drawn mouth is, and how to
 * shut it in the next frame.
 */
import { MOUTH_MORPHS } from '../../core/avatar/required-names';

const MOUTH = new Set(MOUTH_MORPHS);

/** Mesh morph data as three.js exposes it. */
export interface MorphMesh {
  morphTargetDictionary?: Record<string, number>;
  morphTargetInfluences?: number[];
}

/** The rendered openness of the mouth: per morph the largest influence over the meshes that carry it, summed. */
export function mouthOpenness(meshes: readonly MorphMesh[]): number {
  const byName = new Map<string, number>();
  for (const mesh of meshes) {
    const dict = mesh.morphTargetDictionary;
    const infl = mesh.morphTargetInfluences;
    if (!dict || !infl) continue;
    for (const [name, i] of Object.entries(dict)) {
      if (!MOUTH.has(name)) continue;
      const v = Math.abs(infl[i] ?? 0);
      if (v > (byName.get(name) ?? 0)) byName.set(name, v);
    }
  }
  let sum = 0;
  for (const v of byName.values()) sum += v;
  return sum;
}

/** A morph's animation state in TalkingHead's `mtAvatar` (fields we reset). */
interface MorphState {
  value: number;
  applied: number;
  newvalue: number | null;
  base: number | null;
  needsUpdate: boolean;
}

/** The TalkingHead members that hold mouth state. */
export interface TalkingHeadMouth {
  mtAvatar: Record<string, MorphState | undefined>;
  morphs?: MorphMesh[];
}

/**
 * TalkingHead eases a morph back to its baseline over several frames; after a barge-in the mouth must be shut in the
 * frame that follows, so the animation state and the rendered influences are both zeroed.
 */
export function closeMouth(head: TalkingHeadMouth): void {
  for (const name of MOUTH_MORPHS) {
    const m = head.mtAvatar[name];
    if (m) Object.assign(m, { value: 0, applied: 0, newvalue: null, base: null, needsUpdate: false });
  }
  for (const mesh of head.morphs ?? []) {
    for (const name of MOUTH_MORPHS) {
      const i = mesh.morphTargetDictionary?.[name];
      if (i !== undefined && mesh.morphTargetInfluences) mesh.morphTargetInfluences[i] = 0;
    }
  }
}
