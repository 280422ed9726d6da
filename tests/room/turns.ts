import type { TurnStage } from '../../core/engine/types';

/**
 * Utterances other than the reply's own turn that reached an endpoint and were not discarded (as noise, empty, or
 * the reply's own echo): user turns made while the user said nothing.
 */
export function phantomTurnsIn(marks: readonly { name: string; turnId: string }[], replyTurnId: string): number {
  const endpoint: TurnStage = 'endpoint';
  const discarded: TurnStage = 'discarded';
  const ids = new Set(marks.filter((m) => m.name === endpoint && m.turnId !== replyTurnId).map((m) => m.turnId));
  for (const m of marks) if (m.name === discarded) ids.delete(m.turnId);
  return ids.size;
}
