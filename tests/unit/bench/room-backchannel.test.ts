/** What the room sweep records of a silent reply and of a backchannel over one (tests/room/turns.ts). */
import { describe, expect, it } from 'vitest';
import type { EngineMark } from '../../e2e/harness';
import { backchannelOutcome, replyLevels, silentReplyMarks } from '../../room/turns';

const mark = (name: string, turnId: string, wallAt = 0, fields?: EngineMark['fields']): EngineMark => ({
  name,
  turnId,
  at: wallAt,
  wallAt,
  ...(fields ? { fields } : {}),
});

describe('the room sweep’s reading of the engine’s marks', () => {
  it('a silent reply: barge-ins split by the rule that decided them, holds (and those by both tracks) and onsets counted', () => {
    const marks = [
      mark('first-audio', 'r'),
      mark('speech-start', 'r'),
      mark('barge-tentative', 'r'),
      mark('barge-in', 'r', 0, { byWords: 1 }),
      mark('barge-tentative', 'r', 0, { bothTracks: true }),
      mark('barge-in', 'r', 0, { byWords: 0 }),
      mark('barge-in', 'r'),
    ];
    expect(silentReplyMarks(marks, 'r')).toEqual({
      falseBargeIns: 3,
      falseBargeInsByWords: 1,
      phantomTurns: 0,
      phantomOnsets: 1,
      falseDucks: 2,
      falseDucksByBoth: 1,
    });
  });

  it('a silent reply’s frames both tracks passed at once: from its newest echo-path mark, not another turn’s', () => {
    const marks = [
      mark('echo-path', 'r', 0, { jointFrames: 2, jointLongestRun: 1 }),
      mark('echo-path', 'other', 0, { jointFrames: 9, jointLongestRun: 9 }),
      mark('echo-path', 'r', 0, { jointFrames: 4, jointLongestRun: 2 }),
    ];
    expect(silentReplyMarks(marks, 'r')).toMatchObject({ jointFrames: 4, jointLongestRun: 2 });
    expect(silentReplyMarks([mark('echo-path', 'r', 0, { longestRun: 3 })], 'r')).not.toHaveProperty('jointFrames');
  });

  it('a silent reply’s echo path and floors at its end, from its newest echo-path mark; none without one', () => {
    const marks = [
      mark('echo-path', 'r', 0, { delayMs: 300, floorRms: 0.02 }),
      mark('echo-path', 'other', 0, { delayMs: 900, floorRms: 0.09, rawFloorRms: 0.2 }),
      mark('echo-path', 'r', 0, { delayMs: 640, floorRms: 0.03, rawFloorRms: 0.07 }),
    ];
    expect(silentReplyMarks(marks, 'r')).toMatchObject({ echoDelayMs: 640, floorRms: 0.03, rawFloorRms: 0.07 });
    expect(silentReplyMarks([mark('first-audio', 'r')], 'r')).not.toHaveProperty('echoDelayMs');
  });

  it('a reply’s levels per track (loudest, second and fourth loudest window), from its newest echo-path mark', () => {
    const levels = { residualRunRms: 0.08, residualRank2Rms: 0.05, residualRank4Rms: 0.01, rawResidualRank4Rms: 0.02 };
    const marks = [mark('echo-path', 'r', 0, { residualRunRms: 0.5 }), mark('echo-path', 'r', 0, levels)];
    expect(silentReplyMarks(marks, 'r')).toMatchObject(levels);
    expect(replyLevels({ ...levels, floorRms: 0.03 })).toEqual(levels);
  });

  it('a backchannel that held the reply and let it go: not stopped, held for the time between the marks, played on', () => {
    const fromVoice = [mark('barge-tentative', 'r', 1000), mark('barge-released', 'r', 1420), mark('done', 'r', 5000)];
    expect(backchannelOutcome(fromVoice, 'r', { text: 'Mm-hm.', preempted: false, barge: undefined })).toEqual({
      text: 'Mm-hm.',
      preempted: false,
      stopped: false,
      turns: 0,
      held: true,
      playedOn: true,
      heldMs: 420,
    });
    // Released, but the reply never reached its end (another turn's done does not count): it did not play on.
    const cut = [mark('barge-tentative', 'r', 1000), mark('barge-released', 'r', 1420), mark('done', 'other', 5000)];
    expect(backchannelOutcome(cut, 'r', { text: 'Mm-hm.', preempted: false, barge: undefined }).playedOn).toBe(false);
  });

  it('a backchannel cut by its words and taken as a turn; one that came after the reply ended stopped nothing', () => {
    const barge = mark('barge-in', 'r', 1300, { byWords: 1 });
    const fromVoice = [mark('barge-tentative', 'r', 1000), barge, mark('endpoint', 'u'), mark('transcript', 'u')];
    expect(backchannelOutcome(fromVoice, 'r', { text: 'Yeah.', preempted: false, barge })).toMatchObject({
      stopped: true,
      stoppedByWords: true,
      turns: 1,
      held: true,
      playedOn: false,
    });
    expect(backchannelOutcome([], 'r', { text: 'Right.', preempted: true, barge })).toMatchObject({
      stopped: false,
      held: false,
    });
  });
});
