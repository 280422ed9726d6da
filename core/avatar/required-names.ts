/**
 * Names a TalkingHead 1.7.0 avatar must contain (docs/avatar.md). Shared by the GLB
 * generator (scripts/avatar), the user-GLB validator (glb-check.ts) and the tests, so the three can never disagree.
 */

/** Root object TalkingHead looks up with `opt.modelRoot`. */
export const MODEL_ROOT = 'Armature';

const SIDE_BONES = [
  'Shoulder',
  'Arm',
  'ForeArm',
  'Hand',
  'HandThumb1',
  'HandThumb2',
  'HandThumb3',
  'HandIndex1',
  'HandIndex2',
  'HandIndex3',
  'HandMiddle1',
  'HandMiddle2',
  'HandMiddle3',
  'HandRing1',
  'HandRing2',
  'HandRing3',
  'HandPinky1',
  'HandPinky2',
  'HandPinky3',
  'UpLeg',
  'Leg',
  'Foot',
  'ToeBase',
] as const;

/** The 52 bones the pose templates touch (showAvatar throws "Avatar object X not found" without them). */
export const POSE_BONES: readonly string[] = [
  'Hips',
  'Spine',
  'Spine1',
  'Spine2',
  'Neck',
  'Head',
  ...SIDE_BONES.map((b) => `Left${b}`),
  ...SIDE_BONES.map((b) => `Right${b}`),
];

/** Not checked by TalkingHead, but showAvatar/lookAt crash without them (eye height also sets the framing). */
export const EYE_BONES: readonly string[] = ['LeftEye', 'RightEye'];

export const REQUIRED_BONES: readonly string[] = [...POSE_BONES, ...EYE_BONES];

/** The 15 Oculus visemes; the jaw is not a bone in TalkingHead, so the mouth only moves through these morphs. */
export const VISEMES = ['sil', 'PP', 'FF', 'TH', 'DD', 'kk', 'CH', 'SS', 'nn', 'RR', 'aa', 'E', 'I', 'O', 'U'] as const;
export type Viseme = (typeof VISEMES)[number];
export const VISEME_MORPHS: readonly string[] = VISEMES.map((v) => `viseme_${v}`);
/** Morphs that open or shape the mouth for speech (silence is the closed mouth itself). */
export const MOUTH_MORPHS: readonly string[] = [...VISEME_MORPHS.filter((m) => m !== 'viseme_sil'), 'jawOpen', 'mouthOpen'];

/** The 52 ARKit blendshape names (Apple's ARFaceAnchor.BlendShapeLocation spelling). */
export const ARKIT_MORPHS: readonly string[] = [
  'eyeBlinkLeft',
  'eyeLookDownLeft',
  'eyeLookInLeft',
  'eyeLookOutLeft',
  'eyeLookUpLeft',
  'eyeSquintLeft',
  'eyeWideLeft',
  'eyeBlinkRight',
  'eyeLookDownRight',
  'eyeLookInRight',
  'eyeLookOutRight',
  'eyeLookUpRight',
  'eyeSquintRight',
  'eyeWideRight',
  'jawForward',
  'jawLeft',
  'jawRight',
  'jawOpen',
  'mouthClose',
  'mouthFunnel',
  'mouthPucker',
  'mouthLeft',
  'mouthRight',
  'mouthSmileLeft',
  'mouthSmileRight',
  'mouthFrownLeft',
  'mouthFrownRight',
  'mouthDimpleLeft',
  'mouthDimpleRight',
  'mouthStretchLeft',
  'mouthStretchRight',
  'mouthRollLower',
  'mouthRollUpper',
  'mouthShrugLower',
  'mouthShrugUpper',
  'mouthPressLeft',
  'mouthPressRight',
  'mouthLowerDownLeft',
  'mouthLowerDownRight',
  'mouthUpperUpLeft',
  'mouthUpperUpRight',
  'browDownLeft',
  'browDownRight',
  'browInnerUp',
  'browOuterUpLeft',
  'browOuterUpRight',
  'cheekPuff',
  'cheekSquintLeft',
  'cheekSquintRight',
  'noseSneerLeft',
  'noseSneerRight',
  'tongueOut',
];

/** Missing any of these crashes TalkingHead 1.7.0 at run time (reference §7.2, measured one by one). */
export const CRASH_CRITICAL_MORPHS: readonly string[] = [
  'eyeBlinkLeft',
  'eyeBlinkRight',
  'eyeLookInLeft',
  'eyeLookInRight',
  'eyeLookOutLeft',
  'eyeLookOutRight',
  'browDownLeft',
  'browDownRight',
  'mouthDimpleLeft',
  'mouthDimpleRight',
  'mouthLeft',
  'mouthPressLeft',
  'mouthPressRight',
  'mouthStretchLeft',
  'mouthStretchRight',
  'mouthShrugLower',
  'mouthShrugUpper',
  'noseSneerLeft',
  'noseSneerRight',
  'mouthRollLower',
  'mouthRollUpper',
  'browOuterUpLeft',
  'browOuterUpRight',
  'cheekPuff',
  'cheekSquintLeft',
  'cheekSquintRight',
];

/** What the default avatar ships: every viseme and every ARKit name. */
export const DEFAULT_AVATAR_MORPHS: readonly string[] = [...VISEME_MORPHS, ...ARKIT_MORPHS];

/** Morphs that must be really modelled (non-zero deltas) in the default avatar, not just present. */
export const MODELLED_MORPHS: readonly string[] = [
  ...VISEME_MORPHS.filter((m) => m !== 'viseme_sil'),
  'jawOpen',
  'mouthSmileLeft',
  'mouthSmileRight',
  'eyeBlinkLeft',
  'eyeBlinkRight',
  'eyeLookUpLeft',
  'eyeLookUpRight',
  'eyeLookDownLeft',
  'eyeLookDownRight',
  'eyeLookInLeft',
  'eyeLookInRight',
  'eyeLookOutLeft',
  'eyeLookOutRight',
  'browInnerUp',
  'browDownLeft',
  'browDownRight',
  'mouthFunnel',
  'mouthPucker',
];
