import type { TurnStage } from '../../core/engine/types';
import type { EngineMark } from '../e2e/harness';
import type { ReplyResult } from './results';

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

/** What the engine did while the user was silent over reply `turnId` (every count's goal is 0). */
export function silentReplyMarks(marks: readonly EngineMark[], turnId: string) {
  const bargeIns = marks.filter((m) => m.name === 'barge-in');
  // A reply may mark its echo path more than once, each with its counts so far: the newest.
  const path = marks.filter((m) => m.name === 'echo-path' && m.turnId === turnId).at(-1);
  const joint = path?.fields?.jointFrames;
  const f = path?.fields ?? {};
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  // The echo path and both floors as they stood at the reply's end: a sweep's later rooms carry the session's history.
  const state = {
    echoDelayMs: num(f.delayMs),
    echoCoupling: num(f.coupling),
    floorRms: num(f.floorRms),
    rawFloorRms: num(f.rawFloorRms),
    ...replyLevels(f),
  };
  return {
    ...(typeof joint === 'number' ? { jointFrames: joint, jointLongestRun: Number(path?.fields?.jointLongestRun ?? 0) } : {}),
    ...Object.fromEntries(Object.entries(state).filter(([, v]) => v !== undefined)),
    falseBargeIns: bargeIns.length,
    falseBargeInsByWords: bargeIns.filter((m) => m.fields?.byWords === 1).length,
    phantomTurns: phantomTurnsIn(marks, turnId),
    phantomOnsets: marks.filter((m) => m.name === 'speech-start').length,
    falseDucks: marks.filter((m) => m.name === 'barge-tentative').length,
    falseDucksByBoth: marks.filter((m) => m.name === 'barge-tentative' && m.fields?.bothTracks === true).length,
  };
}

/** A backchannel over reply `turnId`, from the marks after the voice: whether it held, stopped, or made a turn. */
export function backchannelOutcome(
  fromVoice: readonly EngineMark[],
  turnId: string,
  said: { text: string; preempted: boolean; barge: EngineMark | undefined },
): NonNullable<ReplyResult['backchannel']> {
  const held = fromVoice.find((m) => m.turnId === turnId && m.name === 'barge-tentative');
  const released = fromVoice.find((m) => m.turnId === turnId && m.name === 'barge-released');
  return {
    text: said.text,
    preempted: said.preempted,
    stopped: !said.preempted && said.barge !== undefined,
    ...(said.barge ? { stoppedByWords: said.barge.fields?.byWords === 1 } : {}),
    turns: phantomTurnsIn(fromVoice, turnId),
    held: held !== undefined,
    playedOn: fromVoice.some((m) => m.turnId === turnId && m.name === 'done'),
    ...(held && released ? { heldMs: Math.round(released.wallAt - held.wallAt) } : {}),
  };
}

/**
 * The levels a reply's echo sustained, per track: the loudest anywhere, and the second and fourth loudest of its
 * one-second windows (`echo-path` trace; docs/echo.md, "A missed voice").
 */
export function replyLevels(f: Record<string, unknown>): Record<string, number> {
  const names = [
    'residualRunRms',
    'residualRank2Rms',
    'residualRank4Rms',
    'rawResidualRunRms',
    'rawResidualRank2Rms',
    'rawResidualRank4Rms',
  ];
  return Object.fromEntries(names.filter((n) => typeof f[n] === 'number').map((n) => [n, f[n] as number]));
}
