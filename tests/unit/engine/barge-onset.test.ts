/**
 * The barge onset run (core/engine/barge-detector.ts): `bargeFrames` voiced frames over the gate in a row duck the
 * reply; a hole starts the run again. No playback here, so the gate is `bargeMinRms`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FRAME_MS } from '../../../core/engine/audio-frames';
import { BargeDetector, type BargeDecision } from '../../../core/engine/barge-detector';
import { engineTunables as T, resetTunables } from '../../../core/tunables';

afterEach(() => resetTunables('engine'));

/** 'x' = voiced over the gate, '.' = voiced under it (a hole). Returns each frame's decision kind and the detector. */
function feed(pattern: string): { kinds: BargeDecision['kind'][]; decisions: BargeDecision[]; barge: BargeDetector } {
  const barge = new BargeDetector();
  const decisions = [...pattern].map((c, i) => barge.onFrame((i + 1) * FRAME_MS, 0.9, c === 'x' ? 0.1 : T.bargeMinRms / 4));
  return { kinds: decisions.map((d) => d.kind), decisions, barge };
}

describe('the barge onset run', () => {
  it('five frames over the gate in a row duck the reply from the first one', () => {
    const { kinds, decisions } = feed('..xxxxx');
    expect(kinds.indexOf('duck')).toBe(6);
    expect(decisions[6]).toEqual({ kind: 'duck', onsetAt: 2 * FRAME_MS });
  });

  it('every hole starts the run again', () => {
    expect(feed('xx.xxx').kinds).not.toContain('duck');
    expect(feed('xx.xxxxx').kinds.indexOf('duck')).toBe(7);
    expect(feed('xx.xxxxx').decisions[7]).toEqual({ kind: 'duck', onsetAt: 3 * FRAME_MS });
  });

  it('the reply trace says how close the voice came: frames over the gate and the longest run', () => {
    const { barge } = feed('x.x..xx.x...x');
    expect(barge.replyTrace()).toMatchObject({ overGateFrames: 6, longestRun: 2, voicedUnderGateFrames: 7 });
  });

  it('the reply trace tells a voice under the gate from a loud frame the VAD did not call speech', () => {
    const barge = new BargeDetector();
    barge.onFrame(FRAME_MS, 0.9, T.bargeMinRms / 4); // voiced, under the gate
    barge.onFrame(2 * FRAME_MS, 0.1, 0.1); // loud, unvoiced
    barge.onFrame(3 * FRAME_MS, 0.1, 0.1);
    barge.onFrame(4 * FRAME_MS, 0.1, T.bargeMinRms / 4); // neither
    expect(barge.replyTrace()).toMatchObject({ overGateFrames: 0, voicedUnderGateFrames: 1, loudUnvoicedFrames: 2 });
  });
});
