/**
 * How the avatar looks in each of the engine's states, beside the lips: a mood, a few face and head values, and where
 * it looks. Reduced motion keeps the head movements small and the glance away out.
 */
import type { TalkingHead } from '@met4citizen/talkinghead/modules/talkinghead.mjs';
import type { EngineState } from '../../core/engine/types';

const STATE_LOOK: Record<EngineState, { mood: string; values: Record<string, number> }> = {
  idle: { mood: 'neutral', values: { headRotateZ: 0, browInnerUp: 0, mouthPressLeft: 0, mouthPressRight: 0 } },
  // Leaning in: a small head tilt and lifted brows read as attention.
  listening: { mood: 'happy', values: { headRotateZ: 0.08, browInnerUp: 0.35, mouthPressLeft: 0, mouthPressRight: 0 } },
  // Pondering: head turned and tilted, lips pressed, brows knit.
  thinking: { mood: 'neutral', values: { headRotateZ: -0.06, browInnerUp: 0.5, mouthPressLeft: 0.35, mouthPressRight: 0.35 } },
  speaking: { mood: 'happy', values: { headRotateZ: 0, browInnerUp: 0, mouthPressLeft: 0, mouthPressRight: 0 } },
};

/** Eases the loaded avatar into `state`'s look (TalkingHead's mood animations need the avatar loaded). */
export function showState(head: TalkingHead, state: EngineState, reducedMotion: boolean): void {
  const look = STATE_LOOK[state];
  head.setMood(look.mood);
  const scale = reducedMotion ? 0.4 : 1;
  for (const [k, v] of Object.entries(look.values)) {
    if (head.mtAvatar[k]) head.setValue(k, k.startsWith('head') ? v * scale : v, 400);
  }
  if (state === 'listening') head.makeEyeContact(2000);
  if (state === 'thinking' && !reducedMotion) {
    const r = head.opt as unknown as { nodeAvatar?: HTMLElement };
    const box = r.nodeAvatar?.getBoundingClientRect();
    // Look up and aside, like someone recalling something.
    if (box) head.lookAt(box.left + box.width * 0.85, box.top, 2500);
  }
}
